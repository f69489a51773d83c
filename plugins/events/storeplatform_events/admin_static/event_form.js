// The event form's venue and organizer fields when there are too many places for a <select>
// (#40): as a name is typed, the places whose name (or address, e-mail) contains it are fetched
// from REST's list (GET …/venues?search=…&per_page=10, with the page's form token as X-Nonce
// beside the session cookie) and listed under the field; choosing one (click, or the arrow keys
// and Enter) puts its name in the field and its id in the hidden field the form sends. Without
// this script the form still works: the submit resolves the typed name or id. Text is set with
// textContent only: nothing REST answers is parsed as HTML.
(function () {
  "use strict";
  var WAIT_MS = 200;   // the pause in typing after which the places are asked for
  var SHOWN = 10;

  function finder(root) {
    var input = root.querySelector("input[name$='-find']");
    var field = input.name.slice(0, -"-find".length);
    var hidden = root.querySelector("input[type=hidden][name='" + field + "']");
    var makeNew = root.querySelector("input[type=checkbox][name='" + field + "']");
    var list = root.querySelector(".place-suggestions");
    var url = root.dataset.suggest;
    var nonce = root.dataset.nonce;
    var timer = null;
    var asked = 0;       // the number of the latest question: an older answer is dropped
    var items = [];      // the places listed: {id, name}
    var active = -1;

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-expanded", "false");

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }

    function highlight(index) {
      var options = list.querySelectorAll("li[role=option]");
      active = index;
      options.forEach(function (li, i) { li.setAttribute("aria-selected", i === index ? "true" : "false"); });
      if (index >= 0 && options[index]) {
        input.setAttribute("aria-activedescendant", options[index].id);
        options[index].scrollIntoView({block: "nearest"});
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function pick(index) {
      var place = items[index];
      if (!place) { return; }
      hidden.value = String(place.id);
      input.value = place.name;
      if (makeNew) { makeNew.checked = false; }
      close();
    }

    function show(places, text) {
      while (list.firstChild) { list.removeChild(list.firstChild); }
      items = places.slice(0, SHOWN).map(function (p) {
        return {id: p.id, name: p.name || "", detail: p.city || p.email || ""};
      });
      items.forEach(function (place, i) {
        var li = document.createElement("li");
        li.id = list.id + "-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.dataset.id = String(place.id);
        li.textContent = place.name;
        if (place.detail) {
          var detail = document.createElement("span");
          detail.className = "muted";
          detail.textContent = place.detail;
          li.appendChild(detail);
        }
        // mousedown, not click: the field's blur (which closes the list) comes before a click.
        li.addEventListener("mousedown", function (event) { event.preventDefault(); pick(i); });
        list.appendChild(li);
      });
      if (!items.length) {
        var none = document.createElement("li");
        none.className = "place-none";
        none.textContent = "Nothing matches “" + text + "”.";
        list.appendChild(none);
      }
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      active = -1;
    }

    function ask(text) {
      var number = ++asked;
      var query = url + "?search=" + encodeURIComponent(text) + "&per_page=" + SHOWN;
      fetch(query, {credentials: "same-origin", headers: {"Accept": "application/json", "X-Nonce": nonce}})
        .then(function (res) { return res.ok ? res.json() : Promise.reject(res.status); })
        .then(function (places) {
          if (number === asked && input.value.trim() === text && Array.isArray(places)) { show(places, text); }
        })
        .catch(function () { if (number === asked) { close(); } });  // the submit still resolves the name
    }

    input.addEventListener("input", function () {
      hidden.value = "";  // a name typed anew: the submit resolves it unless a suggestion is chosen
      clearTimeout(timer);
      var text = input.value.trim();
      if (text.length < 2) { asked++; close(); return; }
      timer = setTimeout(function () { ask(text); }, WAIT_MS);
    });
    input.addEventListener("keydown", function (event) {
      if (list.hidden || !items.length) { return; }
      if (event.key === "ArrowDown") {
        event.preventDefault();
        highlight(active + 1 >= items.length ? 0 : active + 1);
      } else if (event.key === "ArrowUp") {
        event.preventDefault();
        highlight(active <= 0 ? items.length - 1 : active - 1);
      } else if (event.key === "Enter" && active >= 0) {
        event.preventDefault();  // a choice, not the form's submit
        pick(active);
      } else if (event.key === "Escape") {
        close();
      }
    });
    input.addEventListener("blur", close);
  }

  document.querySelectorAll(".place-finder[data-suggest]").forEach(finder);
}());
