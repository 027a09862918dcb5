// Virtual lists: only the rows in view exist in the DOM. fetch(from, n)
// asks the worker for a window of rows, draw(row, index) makes one row's
// element, painted() runs after a window is drawn.
import { el } from './dom.js';

export class Virtual {
  constructor(box, rowH, fetch, draw, painted, top) {
    this.box = box; this.rowH = rowH; this.fetch = fetch; this.draw = draw; this.painted = painted; this.top = top || 0;
    this.count = 0; this.items = new Map(); this.req = 0;
    this.spacer = box.querySelector('.pg-spacer') || box.appendChild(el('div', 'pg-spacer'));
    box.addEventListener('scroll', () => this.update(), { passive: true });
  }
  setCount(n) {
    this.count = n;
    this.spacer.style.height = (this.top + n * this.rowH) + 'px';
  }
  range() {
    const h = this.box.clientHeight || 600;
    const from = Math.max(0, Math.floor((this.box.scrollTop - this.top) / this.rowH) - 5);
    return [from, Math.min(this.count - from, Math.ceil(h / this.rowH) + 10)];
  }
  async update(force) {
    const [from, n] = this.range();
    if (!force && from === this.from && n === this.n) return;
    this.from = from; this.n = n;
    const req = ++this.req;
    const items = n > 0 ? await this.fetch(from, n) : [];
    if (req !== this.req) return;
    for (const e of this.items.values()) e.remove();
    this.items.clear();
    items.forEach((it, i) => {
      const e = this.draw(it, from + i);
      e.style.top = (this.top + (from + i) * this.rowH) + 'px';
      this.items.set(from + i, e);
      this.box.appendChild(e);
    });
    this.painted();
  }
  scrollTo(i) {
    const y = this.top + i * this.rowH;
    if (y < this.box.scrollTop + this.top || y + this.rowH > this.box.scrollTop + this.box.clientHeight) {
      this.box.scrollTop = Math.max(0, y - this.box.clientHeight / 3);
    }
    return this.update(true);
  }
  clear() {
    for (const e of this.items.values()) e.remove();
    this.items.clear(); this.from = this.n = -1; this.req++;
    this.setCount(0);
  }
}
