/* statuswatch dashboard enhancement: shows times in the viewer's own zone. The pages work without
   it (they show UTC); nothing here loads anything or changes what the page says, only how. */
(function () {
  'use strict';

  var format;
  try {
    format = new Intl.DateTimeFormat(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    });
  } catch (e) {
    return;
  }

  function localiseTimes(root) {
    var times = root.querySelectorAll('time[datetime]');
    for (var i = 0; i < times.length; i++) {
      var el = times[i];
      // Only full instants: a bare date (a UTC day of the bars) is the same day everywhere it is read.
      var value = el.getAttribute('datetime');
      if (!value || value.indexOf('T') < 0 || el.hasAttribute('data-local')) continue;
      var date = new Date(value);
      if (isNaN(date.getTime())) continue;
      // The UTC text stays available as a tooltip.
      if (!el.title) el.title = el.textContent;
      el.textContent = format.format(date);
      el.setAttribute('data-local', '');
    }
  }

  // The sign-up form offers UTC until told otherwise; with scripts, the reader's own zone is chosen
  // for them (still a select they can change). Only a fresh form asks for it: never a saved choice.
  function suggestZone(root) {
    var select = root.querySelector('select[data-browser-zone]');
    var zone;
    try {
      zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (e) {
      return;
    }
    if (!select || !zone || select.value !== 'UTC') return;
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === zone) {
        select.value = zone;
        return;
      }
    }
    // A zone the server spells differently (an old alias): offered as is, the server canonicalises it.
    var option = document.createElement('option');
    option.value = zone;
    option.textContent = zone.replace(/_/g, ' ');
    select.insertBefore(option, select.firstChild);
    select.value = zone;
  }

  // A row of day bars is one tab stop (the server marks its newest day); arrow keys, Home and End
  // move focus, and the day that has it keeps the row's one tabindex="0" for the next Tab back.
  // Only the days that show count: a narrow screen hides the older ones (public/charts.css).
  var DAY_KEYS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
  function shownDays(row) {
    return Array.prototype.filter.call(row.children, function (day) {
      return day.getClientRects().length > 0;
    });
  }

  // A day that held the row's tab stop and is now hidden (the window got narrower) would take the
  // row out of the tab order: the stop goes back to the newest day.
  function keepTabStopsShown(root) {
    var rows = root.querySelectorAll('[data-roving-days]');
    for (var i = 0; i < rows.length; i++) {
      var stop = rows[i].querySelector('[tabindex="0"]');
      var newest = rows[i].lastElementChild;
      if (!stop || !newest || stop === newest || stop.getClientRects().length > 0) continue;
      stop.setAttribute('tabindex', '-1');
      newest.setAttribute('tabindex', '0');
    }
  }

  function roveDays(root) {
    window.addEventListener('resize', function () {
      keepTabStopsShown(root);
    });
    root.addEventListener('keydown', function (event) {
      var day = event.target;
      var row = day && day.parentElement;
      if (!row || !row.hasAttribute || !row.hasAttribute('data-roving-days')) return;
      var days = shownDays(row);
      var index = days.indexOf(day);
      var next;
      if (event.key === 'Home') next = 0;
      else if (event.key === 'End') next = days.length - 1;
      else if (Object.prototype.hasOwnProperty.call(DAY_KEYS, event.key)) next = index + DAY_KEYS[event.key];
      else return;
      event.preventDefault();
      next = Math.max(0, Math.min(days.length - 1, next));
      if (next === index) return;
      day.setAttribute('tabindex', '-1');
      days[next].setAttribute('tabindex', '0');
      days[next].focus();
    });
  }

  function start() {
    localiseTimes(document);
    suggestZone(document);
    roveDays(document);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
