// Which tick is shown, and playing through them. Listeners are told of every change; the page
// coalesces them into one render per animation frame, so that a fast slider or a high speed
// never draws more than the screen shows.

export const SPEEDS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128];

export class Playback {
  constructor(replay) {
    this.replay = replay;
    this.index = 0;
    this.playing = false;
    this.speed = 4;
    /** While following, new ticks of a live match are shown as they arrive. */
    this.following = true;
    this.live = false;
    this.timer = null;
    this.listeners = [];
    replay.onChange(() => {
      if (this.following) this.seek(this.last, { keepFollowing: true });
      else this.emit();
    });
  }

  get last() {
    return Math.max(0, this.replay.length - 1);
  }

  onChange(listener) {
    this.listeners.push(listener);
  }

  emit() {
    for (const listener of this.listeners) listener(this);
  }

  seek(index, { keepFollowing = false } = {}) {
    const next = Math.max(0, Math.min(this.last, Math.round(index)));
    this.following = keepFollowing || next === this.last;
    if (next !== this.index) this.index = next;
    this.emit();
  }

  step(delta) {
    this.seek(this.index + delta);
  }

  play() {
    if (this.index >= this.last && !this.live) this.index = 0;
    this.playing = true;
    this.schedule();
    this.emit();
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    this.emit();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  setSpeed(speed) {
    this.speed = speed;
    if (this.playing) this.schedule();
    this.emit();
  }

  faster(direction) {
    const at = SPEEDS.indexOf(this.speed);
    const next = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, (at < 0 ? 3 : at) + direction))];
    this.setSpeed(next);
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.advance(), 1000 / this.speed);
  }

  advance() {
    if (!this.playing) return;
    if (this.index < this.last) {
      this.seek(this.index + 1);
    } else if (!this.live) {
      this.pause();
      return;
    }
    this.schedule();
  }
}
