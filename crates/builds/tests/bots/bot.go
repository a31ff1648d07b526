// A Quoridor bot for the builds' tests: walks a shortest path to its goal (walls counted,
// pawns jumped as the rules say).
package main

import (
	"bufio"
	"fmt"
	"os"
)

var n, me, m int
var px, py []int
var walls [][4]int
var in = bufio.NewReader(os.Stdin)
var dxs = [4]int{1, -1, 0, 0}
var dys = [4]int{0, 0, 1, -1}

func next() int {
	var v int
	if _, err := fmt.Fscan(in, &v); err != nil {
		os.Exit(0)
	}
	return v
}

func goal(x, y int) bool {
	if n == 2 {
		if me == 0 {
			return y == m-1
		}
		return y == 0
	}
	return [4]bool{y == m-1, x == 0, y == 0, x == m-1}[me]
}

func inside(x, y int) bool { return x >= 0 && y >= 0 && x < m && y < m }

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func blocked(x, y, dx, dy int) bool {
	for _, w := range walls {
		if w[2] == 1 && dy == 0 && w[0] == min(x, x+dx) && w[1] <= y && y <= w[1]+1 {
			return true
		}
		if w[2] == 0 && dx == 0 && w[1] == min(y, y+dy) && w[0] <= x && x <= w[0]+1 {
			return true
		}
	}
	return false
}

func occupied(x, y int) bool {
	for p := 0; p < n; p++ {
		if px[p] == x && py[p] == y {
			return true
		}
	}
	return false
}

func distances() []int {
	dist := make([]int, m*m)
	queue := []int{}
	for c := range dist {
		dist[c] = -1
		if goal(c%m, c/m) {
			dist[c] = 0
			queue = append(queue, c)
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		x, y := c%m, c/m
		for d := 0; d < 4; d++ {
			nx, ny := x+dxs[d], y+dys[d]
			if inside(nx, ny) && dist[ny*m+nx] < 0 && !blocked(x, y, dxs[d], dys[d]) {
				dist[ny*m+nx] = dist[c] + 1
				queue = append(queue, ny*m+nx)
			}
		}
	}
	return dist
}

func moves() [][2]int {
	out := [][2]int{}
	x, y := px[me], py[me]
	for d := 0; d < 4; d++ {
		dx, dy := dxs[d], dys[d]
		nx, ny := x+dx, y+dy
		if !inside(nx, ny) || blocked(x, y, dx, dy) {
			continue
		}
		if !occupied(nx, ny) {
			out = append(out, [2]int{nx, ny})
			continue
		}
		bx, by := nx+dx, ny+dy
		if inside(bx, by) && !blocked(nx, ny, dx, dy) {
			if !occupied(bx, by) {
				out = append(out, [2]int{bx, by})
			}
			continue
		}
		for _, s := range []int{-1, 1} {
			sx, sy := dy*s, dx*s
			cx, cy := nx+sx, ny+sy
			if inside(cx, cy) && !blocked(nx, ny, sx, sy) && !occupied(cx, cy) {
				out = append(out, [2]int{cx, cy})
			}
		}
	}
	return out
}

func main() {
	n, me, m = next(), next(), next()
	px, py = make([]int, n), make([]int, n)
	for p := 0; p < n; p++ {
		px[p], py[p] = next(), next()
		next()
	}
	for {
		if next() == -1 {
			return
		}
		for p := 0; p < n; p++ {
			px[p], py[p] = next(), next()
			next()
		}
		walls = make([][4]int, next())
		for i := range walls {
			walls[i] = [4]int{next(), next(), next(), next()}
		}
		dist := distances()
		best := -1
		answer := "0 0"
		for _, c := range moves() {
			d := dist[c[1]*m+c[0]]
			if d >= 0 && (best < 0 || d < best) {
				best = d
				answer = fmt.Sprintf("%d %d", c[0], c[1])
			}
		}
		fmt.Println(answer)
	}
}
