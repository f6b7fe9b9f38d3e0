"""JavaScript that tasks/fetch/browser.py runs in rendered pages: the DOM guard, instrumentation,
settling, clicking "load more" buttons, frames, and the DOM size check."""

import json

# Installed before any page script runs, in every frame (or late, where CDP is missing): the
# DOM's size watched while the page loads. A MutationObserver's callback runs right after
# the script task that changed the DOM, before the page is styled and laid out (where a
# large DOM costs most), so a page whose DOM grows past `chars` characters of text and
# attribute values or `nodes` nodes is stopped there: loading stopped, its document emptied
# (again at every later change), and the window property `key` (random per pool, so the page
# cannot forge or hide it) reads {chars, nodes}. Added nodes are counted as they come; over a
# bound, the whole document is counted again (nodes moved or replaced were counted twice).
# A script building its DOM in one task (detached, or all at once) never lets the observer
# run: the DOM's ways in (createElement, createTextNode, the innerHTML/textContent/data
# setters, insertAdjacentHTML, document.write) count what they make, and past twice the
# bounds over the page's life they throw, which ends the script's task.
_GUARD = r"""
(() => {
  const KEY = %(key)s, MAX_CHARS = %(chars)d, MAX_NODES = %(nodes)d;
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  let chars = 0, nodes = 0, made = 0, text = 0, over = null;
  Object.defineProperty(window, KEY, {get: () => over, configurable: false, enumerable: false});
  const size = root => {
    let c = 0, n = 0;
    const w = document.createTreeWalker(root, 0xFFFFFFFF);
    for (let x = root; x; x = w.nextNode()) {
      n++;
      const t = x.nodeType;
      if (t === 3 || t === 4 || t === 8) c += x.data.length;
      else if (t === 1) for (const a of x.attributes) c += a.value.length;
      if (n > 2 * MAX_NODES || c > 2 * MAX_CHARS) break;
    }
    return [c, n];
  };
  const clear = () => {
    try { window.stop(); } catch (e) {}
    const de = document.documentElement;
    if (de) try { de.replaceChildren(); } catch (e) {}
  };
  const spend = (n, c) => {
    made += n; text += c;
    if (made > 2 * MAX_NODES || text > 2 * MAX_CHARS) {
      if (!over) over = {chars: text, nodes: made};
      throw new RangeError('blogharvest: the page made a DOM past its bounds');
    }
  };
  const wrap = (proto, name, cost) => {
    const f = proto && proto[name];
    if (typeof f !== 'function') return;
    proto[name] = function () { spend(...cost(arguments)); return f.apply(this, arguments); };
  };
  const len = v => (typeof v === 'string' ? v.length : 0);
  wrap(Document.prototype, 'createElement', () => [1, 0]);
  wrap(Document.prototype, 'createElementNS', () => [1, 0]);
  wrap(Document.prototype, 'createTextNode', a => [1, len(a[0])]);
  wrap(Document.prototype, 'createComment', a => [1, len(a[0])]);
  wrap(Document.prototype, 'write', a => [0, Array.prototype.reduce.call(a, (s, v) => s + len(v), 0)]);
  wrap(Document.prototype, 'writeln', a => [0, Array.prototype.reduce.call(a, (s, v) => s + len(v), 0)]);
  wrap(Element.prototype, 'insertAdjacentHTML', a => [0, len(a[1])]);
  wrap(Element.prototype, 'insertAdjacentText', a => [0, len(a[1])]);
  const setter = (proto, name) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, name);
    if (!d || !d.set) return;
    Object.defineProperty(proto, name, Object.assign({}, d, {set(v) { spend(0, len(v)); return d.set.call(this, v); }}));
  };
  setter(Element.prototype, 'innerHTML');
  setter(Element.prototype, 'outerHTML');
  setter(Node.prototype, 'textContent');
  setter(Node.prototype, 'nodeValue');
  setter(CharacterData.prototype, 'data');
  setter(HTMLElement.prototype, 'innerText');
  setter(HTMLElement.prototype, 'outerText');
  new MutationObserver(muts => {
    if (over) return clear();
    for (const m of muts) {
      if (m.type === 'characterData') chars += (m.target.data || '').length;
      else if (m.type === 'attributes') chars += ((m.target.getAttribute && m.target.getAttribute(m.attributeName)) || '').length;
      else for (const a of m.addedNodes) { const [c, n] = size(a); chars += c; nodes += n; }
    }
    if (chars <= MAX_CHARS && nodes <= MAX_NODES) return;
    [chars, nodes] = size(document);
    if (chars > MAX_CHARS || nodes > MAX_NODES) { over = {chars: chars, nodes: nodes}; clear(); }
  }).observe(document, {childList: true, subtree: true, characterData: true, attributes: true});
})();
"""


def guard_script(key: str, chars: int, nodes: int) -> str:
    """`_GUARD` for one pool: its window property `key`, its bounds."""
    return _GUARD % {"key": json.dumps(key), "chars": int(chars), "nodes": int(nodes)}


# Installed before any page script runs (or late, through execute_script, where CDP is
# missing): counts requests in flight and notes the time of the last DOM change.
_INSTRUMENT = r"""
(() => {
  if (window.__bhNet) return;
  const st = window.__bhNet = {inflight: 0, last: Date.now(), mutations: 0};
  const inc = () => { st.inflight++; st.last = Date.now(); };
  const dec = () => { st.inflight = Math.max(0, st.inflight - 1); st.last = Date.now(); };
  if (window.fetch) {
    const f = window.fetch;
    window.fetch = function () {
      inc();
      // a fetch resolves on the response headers: count it until its body has arrived
      // (read from a clone, so the page's own reading is untouched)
      try {
        const p = f.apply(this, arguments);
        p.then(r => { try { r.clone().arrayBuffer().then(dec, dec); } catch (e) { dec(); } }, dec);
        return p;
      }
      catch (e) { dec(); throw e; }
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    inc();
    this.addEventListener('loadend', dec, {once: true});
    try { return send.apply(this, arguments); } catch (e) { dec(); throw e; }
  };
  const js = t => !t || /^(text|application)\/(x-)?(java|ecma)script$|^module$/i.test(t);
  new MutationObserver(muts => {
    st.last = Date.now(); st.mutations += muts.length;
    for (const m of muts) for (const n of m.addedNodes) {
      if (n.tagName === 'SCRIPT' && n.src && !n.noModule && js(n.type)) {
        inc();
        n.addEventListener('load', dec, {once: true});
        n.addEventListener('error', dec, {once: true});
      }
    }
  }).observe(document, {childList: true, subtree: true, characterData: true});
})();
"""

# Resolves when the document is loaded and quiet: no DOM change for `quiet` ms and no
# request in flight (a request older than `stale` ms of silence, long polling, is ignored);
# with `need_change`, only once the DOM changed after mutation count `base`.
_SETTLE = r"""
const [quiet, stale, maxMs, needChange, base, done] = arguments;
const t0 = Date.now();
(function tick() {
  const st = window.__bhNet, now = Date.now();
  const q = now - st.last;
  const changed = !needChange || st.mutations > base;
  if (document.readyState === 'complete' && changed && q >= quiet && (st.inflight === 0 || q >= stale))
    return done({ok: true, waited: now - t0});
  if (now - t0 >= maxMs) return done({ok: false, waited: now - t0, inflight: st.inflight, changed});
  setTimeout(tick, 40);
})();
"""

_WAIT_SELECTOR = r"""
const [sel, maxMs, done] = arguments;
const t0 = Date.now();
(function tick() {
  let hit = null;
  try { hit = document.querySelector(sel); } catch (e) { return done(false); }
  if (hit) return done(true);
  if (Date.now() - t0 >= maxMs) return done(false);
  setTimeout(tick, 40);
})();
"""

# Click the first visible, enabled, not yet exhausted button matching one of the
# selectors. A window-level listener cancels the click's default action, so a link
# never navigates away (its own handlers still run).
_CLICK = r"""
const sels = arguments[0];
const signature = () => document.getElementsByTagName('*').length + ':' + (document.body ? document.body.textContent.length : 0);
const usable = el => {
  if (el.disabled || el.getAttribute('aria-disabled') === 'true' || el.hasAttribute('data-bh-spent')) return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  const cs = getComputedStyle(el);
  return cs.visibility !== 'hidden' && cs.display !== 'none' && cs.pointerEvents !== 'none';
};
for (const s of sels) {
  let els;
  try { els = document.querySelectorAll(s); } catch (e) { continue; }
  for (const el of els) {
    if (!usable(el)) continue;
    document.querySelectorAll('[data-bh-last]').forEach(e => e.removeAttribute('data-bh-last'));
    el.setAttribute('data-bh-last', '1');
    const guard = ev => { if (ev.target === el || el.contains(ev.target)) ev.preventDefault(); };
    window.addEventListener('click', guard, {once: true});
    el.scrollIntoView({block: 'center'});
    const base = window.__bhNet ? window.__bhNet.mutations : 0, sig = signature();
    el.click();
    return {selector: s, base: base, sig: sig};
  }
}
return null;
"""

_SIGNATURE = ("return document.getElementsByTagName('*').length + ':' + "
              "(document.body ? document.body.textContent.length : 0)")
_SPENT = "document.querySelectorAll('[data-bh-last]').forEach(e => e.setAttribute('data-bh-spent', '1'));"
_CLEAN = r"""
for (const a of ['data-bh-last', 'data-bh-spent'])
  document.querySelectorAll('[' + a + ']').forEach(e => e.removeAttribute(a));
"""

_STATUS = r"""
const nav = performance.getEntriesByType('navigation')[0];
return nav && nav.responseStatus ? nav.responseStatus : null;
"""

_FRAMES = r"""
const pats = arguments[0], limit = arguments[1], out = [];
for (const f of document.querySelectorAll('iframe')) {
  const src = f.src || f.getAttribute('src') || '';
  if (!src || !pats.some(p => src.indexOf(p) >= 0)) continue;
  f.setAttribute('data-bh-frame', String(out.length));
  out.push([f, src]);
  if (out.length >= limit) break;
}
return out;
"""

# The size of what the page would serialise to, counted in the renderer: only the number crosses
# to the driver, so a DOM bomb is refused before its markup is copied out.
DOM_SIZE = r"""
const de = document.documentElement;
return de ? de.outerHTML.length : 0;
"""
