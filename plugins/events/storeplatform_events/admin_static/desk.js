// The check-in desk: scans ticket QR codes with the camera (the browser's BarcodeDetector where
// present, jsQR otherwise) or takes a typed code, posts it to the desk's scan URL and shows the
// result large; keeps the stats and the recent check-ins current. Text is set with textContent
// only: nothing the server or a QR code says is ever parsed as HTML.
//
// One code is checked at a time. While it is on its way the result box says "Checking…" with
// its code (the previous result is gone: it is never mistaken for this one's). A code scanned or
// typed meanwhile waits in the queue shown under the box and is checked after it, in order;
// nothing is dropped. A code already waiting or being checked is not queued twice (its answer
// would only be "already checked in"). Each result stays at least RESULT_HOLD_MS before the next
// waiting code replaces it, and every result goes to the "Last scans here" list.
(function () {
  "use strict";
  var root = document.getElementById("desk");
  if (!root) { return; }
  var scanUrl = root.dataset.scanUrl;
  var liveUrl = root.dataset.liveUrl;
  var csrfField = root.dataset.csrfField;
  var csrfToken = root.dataset.csrfToken;
  var csrfHeader = root.dataset.csrfHeader;
  var LIVE_EVERY_MS = 5000;
  var SCAN_EVERY_MS = 150;
  // A code still in front of the camera is not scanned again until the camera has seen no
  // code (or another one) for this long: a ticket held up does not turn into "already in".
  var SAME_CODE_QUIET_MS = 2000;
  // The least time a result is shown before a waiting code's "Checking…" replaces it.
  var RESULT_HOLD_MS = 700;
  // Codes that may wait; beyond, a scan is refused out loud (never dropped unsaid).
  var MAX_WAITING = 50;
  var HISTORY_SHOWN = 8;

  var resultBox = document.getElementById("desk-result");
  var form = document.getElementById("desk-code-form");
  var input = document.getElementById("desk-code");
  var cameraButton = document.getElementById("desk-camera");
  var cameraState = document.getElementById("desk-camera-state");
  var video = document.getElementById("desk-video");
  var queueList = document.getElementById("desk-queue");
  var historyList = document.getElementById("desk-history");
  var waiting = [];      // codes to check, oldest first
  var inFlight = null;   // the code being checked

  function text(id, value) {
    var el = document.getElementById(id);
    if (el) { el.textContent = value === null || value === undefined ? "" : String(value); }
  }

  function showChecking(code) {
    resultBox.className = "desk-result desk-result--checking";
    resultBox.dataset.result = "checking";
    resultBox.dataset.code = code;
    text("desk-result-title", "Checking…");
    text("desk-result-name", "");
    text("desk-result-detail", waiting.length ? waiting.length + " more waiting." : "");
    text("desk-result-code", code);
  }

  function showQueue() {
    while (queueList.firstChild) { queueList.removeChild(queueList.firstChild); }
    waiting.forEach(function (code) {
      var li = document.createElement("li");
      li.className = "desk-queued";
      li.dataset.code = code;
      var label = document.createElement("span");
      label.className = "desk-queued-label";
      label.textContent = "Waiting";
      var value = document.createElement("span");
      value.className = "desk-queued-code";
      value.textContent = code;
      li.appendChild(label);
      li.appendChild(value);
      queueList.appendChild(li);
    });
    queueList.hidden = waiting.length === 0;
    if (inFlight !== null && resultBox.dataset.result === "checking") {
      text("desk-result-detail", waiting.length ? waiting.length + " more waiting." : "");
    }
  }

  function remember(code, kind, title, name) {
    var empty = historyList.querySelector(".desk-history-empty");
    if (empty) { historyList.removeChild(empty); }
    var li = document.createElement("li");
    li.className = "desk-history-item desk-history--" + kind;
    li.dataset.result = kind;
    li.dataset.code = code;
    var what = document.createElement("span");
    what.className = "desk-history-title";
    what.textContent = title;
    var who = document.createElement("span");
    who.className = "desk-history-name";
    who.textContent = name || "";
    var which = document.createElement("span");
    which.className = "desk-history-code";
    which.textContent = code;
    li.appendChild(what);
    li.appendChild(who);
    li.appendChild(which);
    historyList.insertBefore(li, historyList.firstChild);
    while (historyList.children.length > HISTORY_SHOWN) { historyList.removeChild(historyList.lastChild); }
  }

  function showResult(data) {
    delete resultBox.dataset.code;
    resultBox.className = "desk-result desk-result--" + data.result;
    resultBox.dataset.result = data.result;
    text("desk-result-title", data.title);
    text("desk-result-name", data.attendee ? (data.attendee.name || "(no name)") : "");
    var detail = data.message || "";
    if (data.result === "wrong_event" && data.attendee && data.attendee.event_name) {
      detail += " Ticket for: " + data.attendee.event_name + ".";
    }
    if (data.checked_in_at && data.result === "already_in") {
      detail += " In since " + data.checked_in_at + ".";
    }
    text("desk-result-detail", detail);
    text("desk-result-code", data.attendee ? data.attendee.ticket_code : "");
    if (navigator.vibrate) { navigator.vibrate(data.result === "checked_in" ? 80 : [80, 60, 80]); }
  }

  function showProblem(message) {
    delete resultBox.dataset.code;
    resultBox.className = "desk-result desk-result--problem";
    resultBox.dataset.result = "problem";
    text("desk-result-title", "Not sent");
    text("desk-result-name", "");
    text("desk-result-detail", message);
    text("desk-result-code", "");
  }

  function showLive(data) {
    var s = data.stats;
    text("desk-stat-in", s.checked_in);
    text("desk-stat-pending", s.pending);
    text("desk-stat-out", s.checked_out);
    text("desk-stat-cancelled", s.cancelled);
    text("desk-stat-total", s.total);
    text("desk-stat-percentage", s.percentage + " %");
    var list = document.getElementById("desk-recent");
    while (list.firstChild) { list.removeChild(list.firstChild); }
    data.recent.forEach(function (item) {
      var li = document.createElement("li");
      var when = document.createElement("time");
      when.textContent = item.checked_in_at;
      var who = document.createElement("span");
      who.className = "desk-recent-name";
      who.textContent = item.name || item.ticket_code;
      var state = document.createElement("span");
      state.className = "desk-recent-status";
      state.textContent = item.status === "checked_in" ? "in" : item.status.replace("_", " ");
      li.appendChild(when);
      li.appendChild(who);
      li.appendChild(state);
      list.appendChild(li);
    });
    if (!data.recent.length) {
      var empty = document.createElement("li");
      empty.className = "desk-recent-empty";
      empty.textContent = "No check-ins yet.";
      list.appendChild(empty);
    }
  }

  function refreshLive() {
    if (document.hidden) { return Promise.resolve(); }  // a phone in a pocket polls nothing
    return fetch(liveUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (data) { if (data) { showLive(data); } })
      .catch(function () { /* the next round tries again */ });
  }

  // Queue ``code`` to be checked (at once when nothing is on its way). False when it was not
  // queued: empty, the same as the code being checked or one already waiting, or the queue full.
  function enqueue(code) {
    code = code.trim();
    if (!code || code === inFlight || waiting.indexOf(code) >= 0) { return false; }
    if (waiting.length >= MAX_WAITING) {
      showProblem("Too many codes waiting: " + code + " was not queued. Scan it again in a moment.");
      return false;
    }
    waiting.push(code);
    showQueue();
    if (inFlight === null) { next(); }
    return true;
  }

  function next() {
    if (inFlight !== null || !waiting.length) { return; }
    inFlight = waiting.shift();
    showQueue();
    showChecking(inFlight);
    var code = inFlight;
    check(code).then(function () {
      // The result stays a moment before a waiting code's "Checking…" replaces it (the code
      // stays the one in flight meanwhile: new codes wait behind the others).
      if (!waiting.length) { inFlight = null; return; }
      setTimeout(function () { inFlight = null; next(); }, RESULT_HOLD_MS);
    });
  }

  // Resolves once the code was answered (or refused): its result shown and remembered.
  function check(code) {
    var body = new URLSearchParams();
    body.set("code", code);
    body.set(csrfField, csrfToken);
    var headers = {"Accept": "application/json"};
    if (csrfHeader) { headers[csrfHeader] = csrfToken; }
    function problem(message) {
      showProblem(message);
      remember(code, "problem", "Not sent", message);
    }
    return fetch(scanUrl, {method: "POST", credentials: "same-origin", headers: headers, body: body})
      .then(function (res) {
        return res.json().catch(function () { return null; }).then(function (data) {
          if (res.ok && data && data.result) {
            showResult(data);
            // The ticket's own code when the site knows it (a code typed in small letters is the same ticket).
            remember(data.attendee ? data.attendee.ticket_code : code, data.result, data.title,
                     data.attendee ? data.attendee.name : "");
            return refreshLive();
          }
          if (res.redirected) {  // to the login page: the session has ended
            problem("You were logged out: reload the page to log in again.");
          } else if (res.status === 403) {
            problem("This page has expired or you were logged out: reload the page.");
          } else {
            problem((data && data.message) || ("The desk answered " + res.status + "."));
          }
        });
      })
      .catch(function () { problem("No connection to the site; try again."); });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var code = input.value.trim();
    if (!code) { showProblem("Enter a ticket code."); input.focus(); return; }
    enqueue(code);
    input.value = "";  // queued (or already on its way): the next code can be typed at once
    input.focus();
  });

  // --- camera ---------------------------------------------------------------------------
  var canvas = document.createElement("canvas");
  var context = canvas.getContext("2d", {willReadFrequently: true});
  var detector = null;
  var lastCode = null;
  var lastSeen = 0;
  var stream = null;

  function chooseDecoder() {
    if (!("BarcodeDetector" in window)) { return Promise.resolve("jsQR"); }
    return window.BarcodeDetector.getSupportedFormats().then(function (formats) {
      if (formats.indexOf("qr_code") < 0) { return "jsQR"; }
      detector = new window.BarcodeDetector({formats: ["qr_code"]});
      return "BarcodeDetector";
    }).catch(function () { return "jsQR"; });
  }

  function decodeFrame() {
    if (!video.videoWidth) { return Promise.resolve(null); }
    if (detector) {
      return detector.detect(video).then(function (codes) {
        return codes.length ? codes[0].rawValue : null;
      }).catch(function () { return null; });
    }
    // Decoding a smaller copy keeps a phone responsive; a ticket's QR code stays readable.
    var scale = Math.min(1, 640 / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    var image = context.getImageData(0, 0, canvas.width, canvas.height);
    var found = window.jsQR(image.data, image.width, image.height, {inversionAttempts: "dontInvert"});
    return Promise.resolve(found ? found.data : null);
  }

  function tick() {
    if (!stream) { return; }
    decodeFrame().then(function (code) {
      var now = Date.now();
      if (code) {
        code = code.trim();
        var again = code === lastCode && now - lastSeen < SAME_CODE_QUIET_MS;
        lastSeen = now;
        if (!again) { lastCode = code; enqueue(code); }
      } else if (now - lastSeen >= SAME_CODE_QUIET_MS) {
        lastCode = null;
      }
    }).then(function () { setTimeout(tick, SCAN_EVERY_MS); });
  }

  function stopCamera() {
    if (stream) { stream.getTracks().forEach(function (t) { t.stop(); }); }
    stream = null;
    video.hidden = true;
    cameraButton.textContent = "Scan with the camera";
    cameraState.textContent = "";
  }

  cameraButton.addEventListener("click", function () {
    if (stream) { stopCamera(); return; }
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      cameraState.textContent = "This browser gives no camera to this page (it needs HTTPS); type the code.";
      return;
    }
    cameraState.textContent = "Starting the camera…";
    navigator.mediaDevices.getUserMedia({video: {facingMode: "environment"}, audio: false})
      .then(function (media) {
        stream = media;
        video.srcObject = media;
        video.hidden = false;
        return video.play().then(chooseDecoder);
      })
      .then(function (decoder) {
        root.dataset.decoder = decoder;
        cameraButton.textContent = "Stop the camera";
        cameraState.textContent = "Camera on: hold a ticket's QR code in view.";
        tick();
      })
      .catch(function (err) {
        stopCamera();
        cameraState.textContent = "No camera: " + (err && err.message ? err.message : "refused") + ". Type the code.";
      });
  });

  setInterval(refreshLive, LIVE_EVERY_MS);
})();
