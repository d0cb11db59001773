// Specpress pages work without this script. It adds: copy buttons on code samples, a filter
// over the navigation ("/" focuses it), the current page scrolled into view in the
// navigation, every collapsed section opened for printing, suggestions as one types in a
// search field, on operation pages a language chooser over the request samples (the choice
// remembered across pages) and a response chooser over the response examples, and "since your
// last visit" (the release last seen, remembered per documentation and branch).
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
    if (current && window.matchMedia("(min-width: 901px)").matches) {
      // Centre the current page in the sidebar by scrolling the sidebar alone: scrollIntoView also scrolled the
      // window, so a reader landed on a page already scrolled past its header.
      var offset = current.getBoundingClientRect().top - side.getBoundingClientRect().top;
      side.scrollTop += offset - (side.clientHeight - current.offsetHeight) / 2;
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

  // Suggestions as one types in a search field: the first results of the search's JSON twin
  // (`<action>.json?q=`), in a listbox under the field (the ARIA combobox pattern: arrows move,
  // Enter follows the chosen one, Escape closes). Enter with nothing chosen submits the form to
  // the results page, as it does without this script. Document text is inserted as text only.
  var SUGGESTIONS = 8;

  function suggestions() {
    if (!window.fetch) return;
    var forms = document.querySelectorAll("form[role=search]");
    for (var i = 0; i < forms.length; i++) suggest(forms[i], "suggest" + i);
  }

  function suggest(form, id) {
    var input = form.querySelector("input[name=q]");
    if (!input) return;
    var list = document.createElement("ul");
    list.id = id;
    list.className = "suggest";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Suggestions");
    list.hidden = true;
    var status = document.createElement("p");
    status.className = "sr";
    status.setAttribute("role", "status");
    form.classList.add("suggesting");
    form.appendChild(list);
    form.appendChild(status);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", id);
    input.setAttribute("autocomplete", "off");
    var timer = null;
    var asked = 0;
    var active = -1;
    var options = [];

    function close() {
      list.hidden = true;
      list.textContent = "";
      options = [];
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function choose(i) {
      if (active >= 0) options[active].setAttribute("aria-selected", "false");
      active = i;
      options[i].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", options[i].id);
      if (options[i].scrollIntoView) options[i].scrollIntoView({ block: "nearest" });
    }

    function option(href, build) {
      var li = document.createElement("li");
      li.id = id + "-" + options.length;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.setAttribute("data-href", href);
      build(li);
      // Keep the focus in the field; the click follows the suggestion.
      li.addEventListener("mousedown", function (e) { e.preventDefault(); });
      li.addEventListener("click", function () { window.location.assign(href); });
      list.appendChild(li);
      options.push(li);
    }

    function span(cls, text) {
      var s = document.createElement("span");
      s.className = cls;
      s.textContent = text;
      return s;
    }

    function show(q, data) {
      close();
      var results = data.results || [];
      status.textContent = data.message || data.summary || "";
      if (results.length === 0) return;
      for (var i = 0; i < results.length && i < SUGGESTIONS; i++) {
        (function (r) {
          option(r.href, function (li) {
            if (r.badge) {
              li.appendChild(span("m " + r.badge, r.badge_text));
              li.appendChild(document.createTextNode(" "));
            }
            li.appendChild(span("sgt", r.title));
            li.appendChild(span("rk", r.kind_label + (r.api ? " · " + r.api : "")));
          });
        })(results[i]);
      }
      option(form.action + "?q=" + encodeURIComponent(q), function (li) {
        li.className = "all";
        li.textContent = "All results for “" + q + "”";
      });
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      place();
    }

    // Keeps the list inside the viewport wherever the field sits (the header wraps on small screens).
    function place() {
      list.style.transform = "";
      var box = list.getBoundingClientRect();
      var width = document.documentElement.clientWidth;
      var dx = 0;
      if (box.right > width - 8) dx = width - 8 - box.right;
      if (box.left + dx < 8) dx = 8 - box.left;
      if (dx) list.style.transform = "translateX(" + Math.round(dx) + "px)";
    }

    function ask() {
      var q = input.value.trim();
      var mine = ++asked;
      if (q.length < 2 || q.length > 100) {
        close();
        status.textContent = "";
        return;
      }
      fetch(form.action + ".json?q=" + encodeURIComponent(q), {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (mine !== asked) return;
          if (data) show(q, data);
          else close();
        })
        .catch(function () { if (mine === asked) close(); });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, 120);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && !list.hidden) {
        e.preventDefault();
        e.stopPropagation();
        close();
        return;
      }
      if (list.hidden || options.length === 0) return;
      if (e.key === "ArrowDown") {
        e.preventDefault();
        choose(active < 0 ? 0 : (active + 1) % options.length);
      } else if (e.key === "ArrowUp") {
        e.preventDefault();
        choose(active <= 0 ? options.length - 1 : active - 1);
      } else if (e.key === "Enter" && active >= 0) {
        e.preventDefault();
        window.location.assign(options[active].getAttribute("data-href"));
      }
    });
    input.addEventListener("blur", close);
  }

  // Request samples: without this script each language is a <details>. With it, a labelled
  // <select> shows one at a time; the chosen language's key is remembered (localStorage) and
  // chosen on every page that has a sample in it. Labels come from the document: text only.
  var LANG_KEY = "specpress-sample-language";

  function remembered() {
    try { return window.localStorage.getItem(LANG_KEY); } catch (e) { return null; }
  }

  function remember(lang) {
    try { window.localStorage.setItem(LANG_KEY, lang); } catch (e) { /* storage refused */ }
  }

  // A labelled <select> over `items` put before `anchor`; `label(item)` is each option's text.
  // Shows the item at `start`; `chosen(item)` runs when the reader picks one.
  function chooser(anchor, items, id, name, label, start, chosen) {
    var row = document.createElement("p");
    row.className = "pick";
    var lab = document.createElement("label");
    lab.htmlFor = id;
    lab.textContent = name;
    var select = document.createElement("select");
    select.id = id;
    for (var i = 0; i < items.length; i++) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = label(items[i]);
      select.appendChild(option);
    }
    row.appendChild(lab);
    row.appendChild(select);
    anchor.parentNode.insertBefore(row, anchor);
    function show(k) {
      for (var j = 0; j < items.length; j++) items[j].hidden = j !== k;
      if (items[k].tagName === "DETAILS") items[k].open = true;
      select.value = String(k);
    }
    select.addEventListener("change", function () {
      var k = Number(select.value);
      show(k);
      if (chosen) chosen(items[k]);
    });
    show(start);
  }

  function samplePanes() {
    var groups = document.querySelectorAll(".smps");
    var wanted = remembered();
    for (var g = 0; g < groups.length; g++) {
      var items = groups[g].querySelectorAll(":scope > details.smp");
      if (items.length < 2) continue;
      var start = 0;
      for (var i = 0; i < items.length; i++) {
        if (wanted && items[i].getAttribute("data-lang") === wanted) { start = i; break; }
      }
      groups[g].classList.add("tabbed");
      chooser(groups[g], items, "sample-language-" + g, "Language",
        function (d) {
          // The label alone: the summary's first text, without its "from the API" badge.
          var s = d.querySelector("summary");
          return s && s.firstChild ? s.firstChild.textContent : "";
        },
        start, function (d) { remember(d.getAttribute("data-lang") || ""); });
    }
    var lists = document.querySelectorAll(".rxs");
    for (var r = 0; r < lists.length; r++) {
      var sections = lists[r].querySelectorAll(":scope > section.rx");
      if (sections.length < 2) continue;
      chooser(lists[r], sections, "response-example-" + r, "Response",
        function (s) { var h = s.querySelector("h2, h3, h4, h5, h6"); return h ? h.textContent : ""; },
        0, null);
    }
  }

  // Since your last visit: the release each documentation branch showed last is remembered in this
  // browser (localStorage, nothing sent anywhere). A page of a branch's latest release carries
  // #since (hidden) with data-key, data-release and data-changes (the compare page's JSON twin).
  // When the release remembered is older, the baseline is kept for this tab (sessionStorage) and
  // the banner says what changed, linking the compare page; the navigation marks changed and new
  // pages. Every string of the JSON is inserted as text, and only same-site paths become links.
  var SEEN = "specpress-seen:";

  function sitePath(p) {
    return typeof p === "string" && p.charAt(0) === "/" && p.charAt(1) !== "/" && p.indexOf("\\") < 0;
  }

  function sinceLastVisit() {
    var box = document.getElementById("since");
    if (!box || !window.fetch) return;
    var key = SEEN + box.getAttribute("data-key");
    var release = box.getAttribute("data-release");
    var url = box.getAttribute("data-changes");
    var from = null;
    try {
      var seen = window.localStorage.getItem(key);
      from = window.sessionStorage.getItem(key);
      if (from === null && seen && seen !== release) {
        from = seen;
        window.sessionStorage.setItem(key, from);
      }
      window.localStorage.setItem(key, release);
    } catch (e) { return; }
    if (!from || from === release || !sitePath(url)) return;
    var q = "?from=" + encodeURIComponent(from) + "&to=" + encodeURIComponent(release);
    fetch(url + q, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (d) { if (d) sinceBanner(box, d, key, release); }, function () {});
  }

  function sinceBanner(box, d, key, release) {
    var c = d.counts || {};
    var total = (c.breaking || 0) + (c.added || 0) + (c.modified || 0) + (c.removed || 0);
    var from = d.from || {};
    var p = document.createElement("p");
    var what = total === 0 ? "only descriptions and examples changed"
      : total + (total === 1 ? " change" : " changes") + (c.breaking ? " (" + c.breaking + " breaking)" : "");
    p.textContent = "Since your last visit (" + (from.api_version || "an earlier release") + "): " + what + ". ";
    if (sitePath(d.compare_href)) {
      var a = document.createElement("a");
      a.href = d.compare_href;
      a.textContent = "See what changed";
      p.appendChild(a);
    }
    var done = document.createElement("button");
    done.type = "button";
    done.textContent = "Dismiss";
    done.addEventListener("click", function () {
      try { window.sessionStorage.setItem(key, release); } catch (e) { /* storage refused */ }
      box.hidden = true;
      var marks = document.querySelectorAll(".side .mk");
      for (var i = 0; i < marks.length; i++) marks[i].parentNode.removeChild(marks[i]);
    });
    box.appendChild(p);
    box.appendChild(done);
    box.hidden = false;
    var pages = Array.isArray(d.pages) ? d.pages : [];
    var links = document.querySelectorAll(".side a[href]");
    var byHref = {};
    for (var i = 0; i < links.length; i++) byHref[links[i].getAttribute("href")] = links[i];
    for (var j = 0; j < pages.length; j++) {
      var pg = pages[j];
      if (!pg || typeof pg.href !== "string") continue;
      var link = Object.prototype.hasOwnProperty.call(byHref, pg.href) ? byHref[pg.href] : null;
      if (!link || link.querySelector(".mk")) continue;
      var added = pg.status === "added";
      var mark = document.createElement("span");
      mark.className = "mk " + (added ? "new" : "chg");
      mark.textContent = added ? "New" : "Changed";
      link.appendChild(mark);
    }
  }

  function start() {
    copyButtons();
    samplePanes();
    navFilter();
    printing();
    suggestions();
    sinceLastVisit();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
