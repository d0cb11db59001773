// "Try it" (shared/render/src/pages/try_it.rs, docs/try-it.md): shows each operation's panel and sends its
// request, through the documentation's proxy or from this browser, as the owner chose. The answer is written
// with text nodes only: nothing an API returns is ever parsed as markup.
(function () {
  "use strict";

  function each(root, selector, f) {
    var found = root.querySelectorAll(selector);
    for (var i = 0; i < found.length; i++) f(found[i]);
  }

  function fill(template, name, value) {
    return template.split("{" + name + "}").join(value);
  }

  function base64(text) {
    var bytes = new TextEncoder().encode(text);
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s);
  }

  // The request the form describes: {method, url, headers: [[name, value]], body}.
  function build(panel, form) {
    var server = form.elements.server ? form.elements.server.value : "";
    each(form, "input[name=var]", function (v) {
      server = fill(server, v.dataset.name, v.value);
    });
    var path = panel.dataset.tryPath;
    var query = [];
    var headers = [];
    each(form, "input[name=param]", function (p) {
      if (p.value === "") return;
      if (p.dataset.in === "path") path = fill(path, p.dataset.name, encodeURIComponent(p.value));
      else if (p.dataset.in === "query") query.push(encodeURIComponent(p.dataset.name) + "=" + encodeURIComponent(p.value));
      else headers.push([p.dataset.name, p.value]);
    });
    var user = null;
    var password = "";
    each(form, "input[name=auth]", function (a) {
      if (a.value === "") return;
      var kind = a.dataset.kind;
      if (kind === "apikey" && a.dataset.in === "query") query.push(encodeURIComponent(a.dataset.name) + "=" + encodeURIComponent(a.value));
      else if (kind === "apikey") headers.push([a.dataset.name, a.value]);
      else if (kind === "bearer") headers.push(["Authorization", "Bearer " + a.value]);
      else if (kind === "basic-user") user = a.value;
      else if (kind === "basic-password") password = a.value;
    });
    if (user !== null) headers.push(["Authorization", "Basic " + base64(user + ":" + password)]);
    var body = form.elements.body ? form.elements.body.value : "";
    if (body !== "") headers.push(["Content-Type", form.elements.body.dataset.type]);
    var url = server.replace(/\/+$/, "") + path + (query.length ? "?" + query.join("&") : "");
    return { method: panel.dataset.tryMethod, url: url, headers: headers, body: body === "" ? null : body };
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  // Shows an answer {status, headers, body, truncated, time_ms}, or a failure's message.
  function show(panel, answer, failure) {
    var result = panel.querySelector(".try-result");
    var status = result.querySelector(".try-status");
    var list = result.querySelector(".try-headers");
    var body = result.querySelector(".try-body");
    clear(list);
    result.hidden = false;
    if (failure) {
      status.textContent = failure;
      body.textContent = "";
      return;
    }
    status.textContent = "HTTP " + answer.status + " in " + answer.time_ms + " ms" +
      (answer.truncated ? " (body cut at 1 MiB)" : "");
    answer.headers.forEach(function (h) {
      var dt = document.createElement("dt");
      dt.textContent = h[0];
      var dd = document.createElement("dd");
      dd.textContent = h[1];
      list.appendChild(dt);
      list.appendChild(dd);
    });
    body.textContent = answer.body;
  }

  function viaProxy(panel, request) {
    return fetch(panel.dataset.tryEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
      credentials: "same-origin"
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) throw new Error(data && data.message ? data.message : "HTTP " + r.status);
        return data;
      });
    });
  }

  function direct(request) {
    var started = performance.now();
    var init = { method: request.method, headers: request.headers, mode: "cors", credentials: "omit" };
    if (request.body !== null && request.method !== "GET" && request.method !== "HEAD") init.body = request.body;
    return fetch(request.url, init).then(function (r) {
      return r.text().then(function (text) {
        var headers = [];
        r.headers.forEach(function (value, name) { headers.push([name, value]); });
        return { status: r.status, headers: headers, body: text, truncated: false, time_ms: Math.round(performance.now() - started) };
      });
    }, function () {
      throw new Error("The request could not be sent: the API is unreachable, or its CORS policy does not allow this site.");
    });
  }

  function wire(panel) {
    var form = panel.querySelector("form");
    if (!form) return;
    panel.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = form.querySelector("button[type=submit]");
      var request = build(panel, form);
      button.disabled = true;
      var sent = panel.dataset.tryMode === "proxy" ? viaProxy(panel, request) : direct(request);
      sent.then(function (answer) { show(panel, answer, null); }, function (e) { show(panel, null, e.message); })
        .then(function () { button.disabled = false; });
    });
  }

  function start() {
    each(document, "details.try", wire);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
