// wideFont is a TrueType font, made here, that draws the characters of
// text as a CJK font and an emoji font draw theirs: an ideograph, kana or
// Hangul syllable 1em wide (a CJK font's em square), an emoji 1.25em
// (Noto Color Emoji's advance: 2550 of 2048 units). The machines the tests
// run on have neither kind of font (Debian's chromium brings DejaVu and
// Liberation), and draw such characters as boxes narrower than a digit,
// which no column cuts; with this font loaded (FontFace), a column sized
// by the old count of one ch a character cuts them, as it did on the
// machines of users who have those fonts. The characters the font does
// not hold fall to the next family. Each glyph is a box, so the text shows.
const EM = 1000;

// isEmoji is whether c (a code point) draws as an emoji
// (Emoji_Presentation) rather than as an ideograph.
const isEmoji = (c) => /\p{Emoji_Presentation}/u.test(String.fromCodePoint(c));

export function wideFont(text) {
  const cps = [...new Set([...text].map((c) => c.codePointAt(0)).filter((c) => c >= 0x1100))].sort((a, b) => a - b);
  // Glyph 0 .notdef, 1 an ideograph's box, 2 an emoji's.
  const advances = [EM / 2, EM, EM * 1.25];
  const glyphOf = (c) => (isEmoji(c) ? 2 : 1);
  const box = (w) => {
    const b = Buffer.alloc(10 + 2 + 2 + 4 + 8 + 8);
    let o = 0;
    o = b.writeInt16BE(1, o); // one contour
    o = b.writeInt16BE(50, o); o = b.writeInt16BE(0, o); o = b.writeInt16BE(w - 50, o); o = b.writeInt16BE(700, o);
    o = b.writeUInt16BE(3, o); // its last point
    o = b.writeUInt16BE(0, o); // no instructions
    for (let i = 0; i < 4; i++) o = b.writeUInt8(1, o); // on the curve, coordinates as int16 deltas
    for (const dx of [50, w - 100, 0, -(w - 100)]) o = b.writeInt16BE(dx, o);
    for (const dy of [0, 0, 700, 0]) o = b.writeInt16BE(dy, o);
    return b;
  };
  const glyphs = [Buffer.alloc(0), box(advances[1]), box(advances[2])];
  const glyf = Buffer.concat(glyphs);
  const loca = Buffer.alloc(2 * (glyphs.length + 1));
  let at = 0;
  glyphs.forEach((g, i) => { loca.writeUInt16BE(at / 2, 2 * i); at += g.length; });
  loca.writeUInt16BE(at / 2, 2 * glyphs.length);

  const head = Buffer.alloc(54);
  head.writeUInt32BE(0x00010000, 0); head.writeUInt32BE(0x00010000, 4); head.writeUInt32BE(0x5f0f3cf5, 12);
  head.writeUInt16BE(0x000b, 16); head.writeUInt16BE(EM, 18);
  head.writeInt16BE(0, 36); head.writeInt16BE(0, 38); head.writeInt16BE(advances[2] - 50, 40); head.writeInt16BE(700, 42);
  head.writeUInt16BE(8, 46); head.writeInt16BE(2, 48); head.writeInt16BE(0, 50); // lowest size, direction, short loca

  const hhea = Buffer.alloc(36);
  hhea.writeUInt32BE(0x00010000, 0); hhea.writeInt16BE(800, 4); hhea.writeInt16BE(-200, 6);
  hhea.writeUInt16BE(advances[2], 10); hhea.writeInt16BE(advances[2] - 50, 16); hhea.writeInt16BE(1, 18);
  hhea.writeUInt16BE(advances.length, 34);

  const maxp = Buffer.alloc(32);
  maxp.writeUInt32BE(0x00010000, 0); maxp.writeUInt16BE(glyphs.length, 4); maxp.writeUInt16BE(4, 6); maxp.writeUInt16BE(1, 8);
  maxp.writeUInt16BE(2, 14); // zones

  const hmtx = Buffer.alloc(4 * advances.length);
  advances.forEach((a, i) => { hmtx.writeUInt16BE(a, 4 * i); hmtx.writeInt16BE(i ? 50 : 0, 4 * i + 2); });

  // cmap: format 4 for the characters of the BMP, format 12 for all, each
  // character a segment (a group) of its own.
  const bmp = cps.filter((c) => c <= 0xffff);
  const segs = [...bmp.map((c) => [c, (glyphOf(c) - c) & 0xffff]), [0xffff, 1]];
  const f4 = Buffer.alloc(16 + 8 * segs.length);
  f4.writeUInt16BE(4, 0); f4.writeUInt16BE(f4.length, 2);
  const n = segs.length, pow = 2 ** Math.floor(Math.log2(n));
  f4.writeUInt16BE(2 * n, 6); f4.writeUInt16BE(2 * pow, 8); f4.writeUInt16BE(Math.log2(pow), 10); f4.writeUInt16BE(2 * n - 2 * pow, 12);
  segs.forEach(([c, delta], i) => {
    f4.writeUInt16BE(c, 14 + 2 * i); // end
    f4.writeUInt16BE(c, 16 + 2 * n + 2 * i); // start
    f4.writeUInt16BE(delta, 16 + 4 * n + 2 * i); // delta
    f4.writeUInt16BE(0, 16 + 6 * n + 2 * i); // range offset
  });
  const f12 = Buffer.alloc(16 + 12 * cps.length);
  f12.writeUInt16BE(12, 0); f12.writeUInt32BE(f12.length, 4); f12.writeUInt32BE(cps.length, 12);
  cps.forEach((c, i) => { f12.writeUInt32BE(c, 16 + 12 * i); f12.writeUInt32BE(c, 20 + 12 * i); f12.writeUInt32BE(glyphOf(c), 24 + 12 * i); });
  const cmapHead = Buffer.alloc(4 + 8 * 2);
  cmapHead.writeUInt16BE(2, 2);
  cmapHead.writeUInt16BE(3, 4); cmapHead.writeUInt16BE(1, 6); cmapHead.writeUInt32BE(cmapHead.length, 8);
  cmapHead.writeUInt16BE(3, 12); cmapHead.writeUInt16BE(10, 14); cmapHead.writeUInt32BE(cmapHead.length + f4.length, 16);
  const cmap = Buffer.concat([cmapHead, f4, f12]);

  const os2 = Buffer.alloc(96);
  os2.writeUInt16BE(4, 0); os2.writeInt16BE(EM, 2); os2.writeUInt16BE(400, 4); os2.writeUInt16BE(5, 6);
  for (const [o, v] of [[10, 650], [12, 700], [16, 140], [18, 650], [20, 700], [24, 480], [26, 50], [28, 250]]) os2.writeInt16BE(v, o);
  os2.write('NONE', 58, 'latin1');
  os2.writeUInt16BE(0x40, 62); // regular
  os2.writeUInt16BE(Math.min(0xffff, cps[0]), 64); os2.writeUInt16BE(Math.min(0xffff, cps.at(-1)), 66);
  os2.writeInt16BE(800, 68); os2.writeInt16BE(-200, 70); os2.writeUInt16BE(800, 74); os2.writeUInt16BE(200, 76);
  os2.writeInt16BE(500, 86); os2.writeInt16BE(700, 88); os2.writeUInt16BE(32, 92);

  const names = [[1, 'kwire wide'], [2, 'Regular'], [4, 'kwire wide'], [6, 'kwire-wide']];
  const strings = names.map(([, s]) => Buffer.from(s, 'utf16le').swap16());
  const nameHead = Buffer.alloc(6 + 12 * names.length);
  nameHead.writeUInt16BE(names.length, 2); nameHead.writeUInt16BE(nameHead.length, 4);
  let so = 0;
  names.forEach(([id], i) => {
    const r = 6 + 12 * i;
    nameHead.writeUInt16BE(3, r); nameHead.writeUInt16BE(1, r + 2); nameHead.writeUInt16BE(0x409, r + 4); nameHead.writeUInt16BE(id, r + 6);
    nameHead.writeUInt16BE(strings[i].length, r + 8); nameHead.writeUInt16BE(so, r + 10);
    so += strings[i].length;
  });
  const name = Buffer.concat([nameHead, ...strings]);

  const post = Buffer.alloc(32);
  post.writeUInt32BE(0x00030000, 0); post.writeInt16BE(-100, 8); post.writeInt16BE(50, 10);

  const tables = { 'OS/2': os2, cmap, glyf, head, hhea, hmtx, loca, maxp, name, post };
  const tags = Object.keys(tables).sort();
  const dir = Buffer.alloc(12 + 16 * tags.length);
  const pow2 = 2 ** Math.floor(Math.log2(tags.length));
  dir.writeUInt32BE(0x00010000, 0); dir.writeUInt16BE(tags.length, 4);
  dir.writeUInt16BE(16 * pow2, 6); dir.writeUInt16BE(Math.log2(pow2), 8); dir.writeUInt16BE(16 * tags.length - 16 * pow2, 10);
  const parts = [dir];
  let offset = dir.length;
  tags.forEach((tag, i) => {
    const t = tables[tag];
    const padded = Buffer.concat([t, Buffer.alloc((4 - (t.length % 4)) % 4)]);
    let sum = 0;
    for (let j = 0; j < padded.length; j += 4) sum = (sum + padded.readUInt32BE(j)) >>> 0;
    const r = 12 + 16 * i;
    dir.write(tag, r, 'latin1'); dir.writeUInt32BE(sum, r + 4); dir.writeUInt32BE(offset, r + 8); dir.writeUInt32BE(t.length, r + 12);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}
