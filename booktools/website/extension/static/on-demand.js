/* Scripts that load when the reader first uses the page, not with it (booktools/website/extension/loading.py).
 *
 * The copy buttons of code blocks (sphinx-copybutton, with clipboard.js) are added to every
 * code block of a page at once: on a long chapter that is a long task and a restyle of the
 * article while the page loads, for buttons that show only when a pointer or focus reaches a
 * block. Here their scripts load, in order, on the first pointer, touch, key or focus event
 * of the page, and add the buttons then. */
(function () {
  "use strict";
  const loader = document.currentScript;
  const names = JSON.parse(loader.dataset.scripts || "[]");
  const EVENTS = ["pointerover", "touchstart", "keydown", "focusin"];
  let started = false;

  function inject(name) {
    return new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = new URL(name, loader.src).href;
      script.onload = script.onerror = resolve;
      document.head.append(script);
    });
  }

  function load() {
    if (started) return;
    started = true;
    EVENTS.forEach((name) => document.removeEventListener(name, load, true));
    names.reduce((previous, name) => previous.then(() => inject(name)), Promise.resolve());
  }

  EVENTS.forEach((name) => document.addEventListener(name, load, { capture: true, passive: true }));
})();
