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

  // The service area on the overview, drawn from the GeoJSON the page carries; the words above
  // the map say the same where Leaflet did not load.
  var areaMap = document.getElementById('service-area-map');
  if (areaMap && window.L) {
    var L = window.L;
    var map = L.map(areaMap, { attributionControl: false, scrollWheelZoom: false, zoomSnap: 0.5 });
    var tileUrl = areaMap.getAttribute('data-tile-url');
    if (tileUrl) {
      L.tileLayer(tileUrl, { maxZoom: 19 }).addTo(map);
      L.control.attribution({ prefix: false }).addAttribution('© OpenStreetMap contributors').addTo(map);
    } else {
      var Grid = L.GridLayer.extend({
        createTile: function () {
          var tile = document.createElement('div');
          tile.className = 'grid-tile';
          return tile;
        },
      });
      new Grid({ tileSize: 64 }).addTo(map);
    }
    var areas = L.geoJSON(JSON.parse(areaMap.getAttribute('data-areas')), {
      style: function () {
        return { color: '#0b6b3a', weight: 2, fillColor: '#0b6b3a', fillOpacity: 0.12 };
      },
      onEachFeature: function (feature, layer) {
        // As text, never markup: the names come from a file an operator edits.
        var label = document.createElement('span');
        label.textContent = feature.properties.name;
        layer.bindTooltip(label, { permanent: true, direction: 'center', className: 'area-label' });
      },
    }).addTo(map);
    // Clear of the zoom buttons in the top left corner.
    map.fitBounds(areas.getBounds(), { paddingTopLeft: [56, 24], paddingBottomRight: [24, 24] });
    L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(map);
  }
})();
