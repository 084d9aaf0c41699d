// Point the page's Colab button at the notebook of the framework the reader chose.
// The book's Colab links open notebooks/<lang>/<framework>/<page>.ipynb; the build
// writes them for the default framework, and sphinx-design keeps the chosen
// framework tab in local storage (sync group "framework"), so this script swaps the
// framework folder of each link when the page loads and whenever a tab changes.
// It also puts the chosen framework's PDF of the book first in the page's download
// menu (theme/pdf_links.py gives each PDF link the class btn-download-pdf-<framework>).
(function () {
  "use strict";
  const GROUP = "framework";
  const STORAGE_KEY = "sphinx-design-tab-id-" + GROUP;
  const PDF_CLASS = "btn-download-pdf-";
  const FOLDER = /\/notebooks\/([^/]+)\/([^/]+)\//;

  function chosen() {
    try {
      const stored = window.localStorage.getItem(STORAGE_KEY);
      if (stored) return stored;
    } catch (err) {
      // no storage: fall back to the tab shown
    }
    const checked = document.querySelector(
      'input:checked + label[data-sync-group="' + GROUP + '"]'
    );
    return checked ? checked.getAttribute("data-sync-id") : null;
  }

  function update() {
    const framework = chosen();
    if (!framework) return;
    document.querySelectorAll('a[href*="colab.research.google.com"]').forEach((link) => {
      link.href = link.href.replace(FOLDER, "/notebooks/$1/" + framework + "/");
    });
    const pdf = document.querySelector("a." + PDF_CLASS + CSS.escape(framework));
    const first = document.querySelector('a[class*="' + PDF_CLASS + '"]');
    if (pdf && first && pdf !== first && pdf.closest("li") && first.closest("li")) {
      first.closest("li").before(pdf.closest("li"));
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    update();
    document.querySelectorAll('label[data-sync-group="' + GROUP + '"]').forEach((label) => {
      const input = document.getElementById(label.getAttribute("for") || "");
      if (input) input.addEventListener("change", () => window.setTimeout(update, 0));
    });
  });
})();
