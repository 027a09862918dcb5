// Virtual lists: only the rows in view exist in the DOM. fetch(from, n)
// asks the worker for a window of rows, draw(row, index) makes one row's
// element, painted() runs after a window is drawn.
//
// A scroll keeps the elements of the rows still in the window and only
// adds and removes those at its edges: the worker's answer can come while
// a button is held on a row (it waits behind a warm-up step or a decode),
// and a row replaced between mousedown and mouseup gets no click. A
// forced update (the rows' content may have changed: a node opened, a
// cell expanded) draws every row anew, and so does any answer after one
// is asked for (or changedRows is called), until one is drawn.
import { el } from './dom.js';

export class Virtual {
  constructor(box, rowH, fetch, draw, painted, top) {
    this.box = box; this.rowH = rowH; this.fetch = fetch; this.draw = draw; this.painted = painted; this.top = top || 0;
    this.count = 0; this.items = new Map(); this.req = 0;
    this.changed = false; // the rows' content changed since the last window drawn
    this.spacer = box.querySelector('.pg-spacer') || box.appendChild(el('div', 'pg-spacer'));
    box.addEventListener('scroll', () => this.update(), { passive: true });
  }
  setCount(n) {
    this.count = n;
    this.spacer.style.height = (this.top + n * this.rowH) + 'px';
  }
  // range is the window of rows to draw for the box scrolled to y.
  range(y = this.box.scrollTop) {
    const h = this.box.clientHeight || 600;
    const from = Math.max(0, Math.floor((y - this.top) / this.rowH) - 5);
    return [from, Math.min(this.count - from, Math.ceil(h / this.rowH) + 10)];
  }
  // update draws the rows in view; to, when given, is where the box is to
  // scroll, once those rows are drawn (scrollTo).
  async update(force, to) {
    const [from, n] = this.range(to);
    if (!force && from === this.from && n === this.n) return;
    this.from = from; this.n = n;
    if (force) this.changed = true;
    const req = ++this.req;
    const items = n > 0 ? await this.fetch(from, n) : [];
    if (req !== this.req) return;
    if (to !== undefined) this.box.scrollTop = to;
    const keep = this.changed ? new Map() : this.items;
    this.changed = false;
    // Rows kept are one run of indexes: new rows before it go before its
    // first element, the rest after, so the DOM stays in row order.
    let first = null;
    for (const [i, e] of keep) if (i >= from && i < from + items.length && (!first || i < first.i)) first = { i, e };
    const next = new Map();
    items.forEach((it, k) => {
      const i = from + k;
      let e = keep.get(i);
      if (!e) {
        e = this.draw(it, i);
        e.style.top = (this.top + i * this.rowH) + 'px';
        if (first && i < first.i) this.box.insertBefore(e, first.e); else this.box.appendChild(e);
      }
      next.set(i, e);
    });
    for (const [i, e] of this.items) if (next.get(i) !== e) e.remove();
    this.items = next;
    this.painted();
  }
  // scrollTo brings row i into view. The box moves only once the rows
  // there are drawn, in the same task: moved first, it showed nothing
  // where it had scrolled until the worker answered (a second and more at
  // the end of a 1 MB frame, the worker busy or the machine slow).
  scrollTo(i) {
    const y = this.top + i * this.rowH, h = this.box.clientHeight;
    if (y < this.box.scrollTop + this.top || y + this.rowH > this.box.scrollTop + h) {
      return this.update(true, Math.max(0, Math.min(y - h / 3, this.box.scrollHeight - h)));
    }
    return this.update(true);
  }
  // changedRows says the rows' content changed (the JSON's form switched,
  // say) before the update that shows it: a scroll's answer meanwhile
  // draws every row anew.
  changedRows() { this.changed = true; }
  clear() {
    for (const e of this.items.values()) e.remove();
    this.items.clear(); this.from = this.n = -1; this.req++;
    this.setCount(0);
  }
}
