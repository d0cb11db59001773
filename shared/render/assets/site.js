// Specpress pages work without this script. It adds: copy buttons on code samples, a filter
// over the navigation ("/" focuses it), the current page scrolled into view in the
// navigation, and every collapsed section opened for printing.
(function () {
  "use strict";

  function copyButtons() {
    var blocks = document.querySelectorAll("pre.code");
    for (var i = 0; i < blocks.length; i++) {
      var pre = blocks[i];
      var wrap = document.createElement("div");
      wrap.className = "sample";
      pre.parentNode.insertBefore(wrap, pre);
      wrap.appendChild(pre);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy this sample");
      button.addEventListener("click", copier(pre, button));
      wrap.appendChild(button);
    }
  }

  function copier(pre, button) {
    return function () {
      var text = pre.innerText;
      var done = function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () {});
      }
    };
  }

  function navFilter() {
    var side = document.querySelector(".side");
    if (!side) return;
    var input = document.createElement("input");
    input.type = "search";
    input.className = "filter";
    input.placeholder = "Filter (press /)";
    input.setAttribute("aria-label", "Filter the navigation");
    side.insertBefore(input, side.firstChild);
    var items = side.querySelectorAll("li");
    var groups = side.querySelectorAll("details.ng");
    var wasOpen = [];
    for (var g = 0; g < groups.length; g++) wasOpen.push(groups[g].open);
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      for (var i = 0; i < items.length; i++) {
        var hit = !q || items[i].textContent.toLowerCase().indexOf(q) >= 0;
        items[i].classList.toggle("hid", !hit);
      }
      for (var j = 0; j < groups.length; j++) {
        var group = groups[j];
        if (!q) {
          group.classList.remove("hid");
          group.open = wasOpen[j];
          continue;
        }
        var title = group.querySelector("summary").textContent.toLowerCase();
        var any = group.querySelector("li:not(.hid)") !== null || title.indexOf(q) >= 0;
        group.classList.toggle("hid", !any);
        group.open = any;
        if (title.indexOf(q) >= 0) {
          var inner = group.querySelectorAll("li");
          for (var k = 0; k < inner.length; k++) inner[k].classList.remove("hid");
        }
      }
    });
    document.addEventListener("keydown", function (e) {
      var t = e.target;
      var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
      if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        input.focus();
      } else if (e.key === "Escape" && t === input) {
        input.value = "";
        input.dispatchEvent(new Event("input"));
        input.blur();
      }
    });
    var current = side.querySelector("a[aria-current]");
    if (current && current.scrollIntoView && window.matchMedia("(min-width: 901px)").matches) {
      current.scrollIntoView({ block: "center" });
    }
  }

  function printing() {
    var opened = [];
    window.addEventListener("beforeprint", function () {
      var all = document.querySelectorAll("main details:not([open])");
      for (var i = 0; i < all.length; i++) {
        all[i].open = true;
        opened.push(all[i]);
      }
    });
    window.addEventListener("afterprint", function () {
      for (var i = 0; i < opened.length; i++) opened[i].open = false;
      opened = [];
    });
  }

  function start() {
    copyButtons();
    navFilter();
    printing();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
