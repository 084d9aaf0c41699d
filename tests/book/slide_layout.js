// Every slide of a reveal.js deck, shown one after another through Reveal's API, and what is wrong
// with each at the window's size (tests/book/test_slide_layout.py): an element past the screen's
// edge, one that scrolls or is clipped, code smaller than `minCodePx` on screen, a slide that
// starts with one of `titles` in anything but a heading, a Korean word broken across two lines.
// Returns [{h, v, problems: [...]}] and the texts of the deck's headings.
({titles, minCodePx}) => {
  const tolerance = 1;  // px: rounding of scaled boxes
  const width = window.innerWidth, height = window.innerHeight;
  const hangulWord = /[\uac00-\ud7af]+/g;
  const describe = (e) => e.tagName.toLowerCase() +
    (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '');
  const text = (e) => e.textContent.replace('¶', '').replace(/\s+/g, ' ').trim();

  function brokenHangulWords(slide) {
    const broken = [];
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('mjx-container, pre')) continue;
      for (const match of node.data.matchAll(hangulWord)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    return broken;
  }

  const slides = [];
  for (const slide of Reveal.getSlides()) {
    const {h, v} = Reveal.getIndices(slide);
    Reveal.slide(h, v);
    const scale = Reveal.getScale();
    const problems = [];
    for (const e of slide.querySelectorAll('*')) {
      // A block of code, a formula: the block is measured, not each of its tokens or glyphs (a
      // block that fits holds what it wraps). Heading anchors are hidden.
      if (e.parentElement.closest('pre, mjx-container') || e.closest('.anchor-link')) continue;
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      const box = e.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -tolerance || box.top < -tolerance || box.right > width + tolerance || box.bottom > height + tolerance) {
        problems.push(`${describe(e)} reaches past the screen: (${Math.round(box.left)}, ${Math.round(box.top)}) to (${Math.round(box.right)}, ${Math.round(box.bottom)})`);
      }
      if ((e.tagName === 'PRE' || e.tagName === 'CODE') && parseFloat(style.fontSize) * scale < minCodePx - 0.01) {
        problems.push(`${describe(e)} is ${(parseFloat(style.fontSize) * scale).toFixed(1)}px on screen`);
      }
      if (e.scrollWidth > e.clientWidth + tolerance && e.clientWidth > 0 && style.display !== 'inline') {
        problems.push(`${describe(e)} is wider than its box (${e.scrollWidth} > ${e.clientWidth}): it scrolls or spills sideways`);
      }
      if (e.scrollHeight > e.clientHeight + tolerance && e.clientHeight > 0 && style.overflowY !== 'visible') {
        problems.push(`${describe(e)} is clipped (${e.scrollHeight} > ${e.clientHeight})`);
      }
    }
    const cell = slide.querySelector('.jp-Cell');
    const first = cell && cell.classList.contains('jp-MarkdownCell') ? cell.querySelector('.jp-RenderedMarkdown > *') : cell;
    for (const title of titles) {
      if (first && text(first).startsWith(title) && !/^H[1-6]$/.test(first.tagName)) {
        problems.push(`starts with "${title}" in a ${first.tagName.toLowerCase()}, not as the slide's title`);
      }
    }
    for (const word of brokenHangulWords(slide)) problems.push(`the word "${word}" is broken across two lines`);
    slides.push({h, v, problems});
  }
  Reveal.slide(0, 0);
  const headings = [...document.querySelectorAll('.reveal .jp-RenderedMarkdown :is(h1, h2, h3, h4, h5, h6)')].map(text);
  return {slides, headings};
}
