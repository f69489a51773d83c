// The check-in desk: scans ticket QR codes with the camera (the browser's BarcodeDetector where
// present, jsQR otherwise) or takes a typed code, posts it to the desk's scan URL and shows the
// result large; keeps the stats and the recent check-ins current. Text is set with textContent
// only: nothing the server or a QR code says is ever parsed as HTML.
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

  var resultBox = document.getElementById("desk-result");
  var form = document.getElementById("desk-code-form");
  var input = document.getElementById("desk-code");
  var cameraButton = document.getElementById("desk-camera");
  var cameraState = document.getElementById("desk-camera-state");
  var video = document.getElementById("desk-video");
  var busy = false;

  function text(id, value) {
    var el = document.getElementById(id);
    if (el) { el.textContent = value === null || value === undefined ? "" : String(value); }
  }

  function showResult(data) {
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

  // Resolves true once the code was answered (or refused), false when another was still on its way.
  function send(code) {
    if (busy) { return Promise.resolve(false); }
    busy = true;
    var body = new URLSearchParams();
    body.set("code", code);
    body.set(csrfField, csrfToken);
    var headers = {"Accept": "application/json"};
    if (csrfHeader) { headers[csrfHeader] = csrfToken; }
    return fetch(scanUrl, {method: "POST", credentials: "same-origin", headers: headers, body: body})
      .then(function (res) {
        return res.json().catch(function () { return null; }).then(function (data) {
          if (res.ok && data && data.result) { showResult(data); return refreshLive(); }
          if (res.redirected) {  // to the login page: the session has ended
            showProblem("You were logged out: reload the page to log in again.");
          } else if (res.status === 403) {
            showProblem("This page has expired or you were logged out: reload the page.");
          } else {
            showProblem((data && data.message) || ("The desk answered " + res.status + "."));
          }
        });
      })
      .catch(function () { showProblem("No connection to the site; try again."); })
      .then(function () { busy = false; return true; });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var code = input.value.trim();
    if (!code) { showProblem("Enter a ticket code."); input.focus(); return; }
    send(code).then(function (sent) {
      if (sent) { input.value = ""; }
      input.focus();
    });
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
        if (!again && !busy) { lastCode = code; return send(code); }
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
