#!/usr/bin/env python3
"""An independent computation of the SPRT numbers of arbiter-sprt, from the published formulas
of fishtest's LLRcalc (generalized log-likelihood ratio, maximum-likelihood estimates under an
expected-score or a t-value constraint) and fastchess's pentanomial Elo. Standard library only.

Reads JSON from stdin: {"alpha", "beta", "elo0", "elo1", "counts": [[5 ints], ...]}.
Writes JSON to stdout: one object per counts, with "llr_normalized", "llr_logistic",
"lower_bound", "upper_bound", "elo", "elo_error95", "los".
"""

import json
import math
import sys

NELO_PER_T = 800 / math.log(10)
Z95 = 1.959963984540054
SCORE_CLAMP = 1e-6


def regularized_pdf(counts):
    """(pairs, [(score a game, probability)]), empty cells counted as 0.001 pair."""
    counts = [c if c > 0 else 1e-3 for c in counts]
    n = sum(counts)
    return n, [(i / 4, c / n) for i, c in enumerate(counts)]


def mean_var(pdf):
    mean = sum(a * p for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def solve_secular(pdf):
    """Root of sum p*a/(1+x*a) between its poles, by bisection (the sum decreases there)."""
    values = [a for a, _ in pdf]
    lo, hi = -1 / max(values), -1 / min(values)
    assert min(values) < 0 < max(values)

    def f(x):
        return sum(p * a / (1 + x * a) for a, p in pdf)

    for _ in range(300):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mle_with_mean(pdf, s):
    x = solve_secular([(a - s, p) for a, p in pdf])
    return [p / (1 + x * (a - s)) for a, p in pdf]


def mle_with_t_value(pdf, ref, t):
    probs = [1 / len(pdf)] * len(pdf)
    for _ in range(10):
        old = probs
        mu, var = mean_var([(a, q) for (a, _), q in zip(pdf, probs)])
        sigma = math.sqrt(var)
        shifted = [
            (a - ref - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p) for a, p in pdf
        ]
        x = solve_secular(shifted)
        probs = [p / (1 + x * b) for b, p in shifted]
        if max(abs(u - v) for u, v in zip(old, probs)) < 1e-9:
            break
    return probs


def llr(pdf, n, h0, h1):
    return n * sum(p * (math.log(q1) - math.log(q0)) for (_, p), q0, q1 in zip(pdf, h0, h1))


def llr_logistic(counts, elo0, elo1):
    n, pdf = regularized_pdf(counts)
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return llr(pdf, n, mle_with_mean(pdf, s0), mle_with_mean(pdf, s1))


def llr_normalized(counts, nelo0, nelo1):
    n, pdf = regularized_pdf(counts)
    t0, t1 = (e / NELO_PER_T * math.sqrt(2) for e in (nelo0, nelo1))
    return llr(pdf, n, mle_with_t_value(pdf, 0.5, t0), mle_with_t_value(pdf, 0.5, t1))


def elo_of(score):
    score = min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP)
    return -400 * math.log10(1 / score - 1)


def estimate(counts):
    n, pdf = regularized_pdf(counts)
    score, var = mean_var(pdf)
    sigma = math.sqrt(var / n)
    return {
        "elo": elo_of(score),
        "elo_error95": (elo_of(score + Z95 * sigma) - elo_of(score - Z95 * sigma)) / 2,
        "los": (1 + math.erf((score - 0.5) / (math.sqrt(2) * sigma))) / 2,
    }


def main():
    query = json.load(sys.stdin)
    alpha, beta = query["alpha"], query["beta"]
    out = []
    for counts in query["counts"]:
        row = {
            "llr_normalized": llr_normalized(counts, query["elo0"], query["elo1"]),
            "llr_logistic": llr_logistic(counts, query["elo0"], query["elo1"]),
            "lower_bound": math.log(beta / (1 - alpha)),
            "upper_bound": math.log((1 - beta) / alpha),
        }
        row.update(estimate(counts))
        out.append(row)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
