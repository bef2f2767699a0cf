// Small enhancements for the partner dashboard; every page works without this file.
(function () {
  'use strict';

  function textOf(element) {
    return 'value' in element && typeof element.value === 'string' ? element.value : element.textContent || '';
  }

  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    var done = false;
    try {
      done = document.execCommand('copy');
    } catch {
      done = false;
    }
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error('copy refused'));
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        return fallbackCopy(text);
      });
    }
    return fallbackCopy(text);
  }

  document.querySelectorAll('[data-copy]').forEach(function (button) {
    var id = button.getAttribute('data-copy');
    var target = document.getElementById(id);
    var status = document.querySelector('[data-copy-status="' + id + '"]');
    if (!target) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      copy(textOf(target)).then(
        function () {
          if (status) status.textContent = 'Copied.';
          button.textContent = 'Copied';
          setTimeout(function () {
            button.textContent = 'Copy';
          }, 2000);
        },
        function () {
          if (typeof target.select === 'function') target.select();
          if (status) status.textContent = 'Press Ctrl+C (or ⌘C) to copy.';
        },
      );
    });
  });

  // Selecting the whole secret on focus makes a manual copy one keystroke.
  document.querySelectorAll('.copy input[readonly]').forEach(function (input) {
    input.addEventListener('focus', function () {
      input.select();
    });
  });

  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });

  var summary = document.querySelector('[data-autofocus]');
  if (summary) summary.focus();
})();
