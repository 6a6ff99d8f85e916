// RoPE Explorer's links and the browser's history (ui/links.py installs this once per
// document, in the sidebar's navigation; it is the app's own constant code).
//
// One history entry per deliberate move: a page opened from a link of the app (the
// navigation, a page link, the tour's steps) is one new entry, and nothing else adds one.
//
// 1. A click on one of the app's links (the navigation's, marked data-rope-link, and
//    every st.page_link of the app) pushes the link's address as a new entry and hands
//    it to Streamlit as a Back/Forward would (a popstate): Streamlit then opens exactly
//    that address, applying every value it names and the default of every control it
//    does not name, and writes its corrections into this entry (history.replaceState).
//    The link keeps the viewer's own settings (CARRIED: language, presentation mode,
//    the sidebar's base, head dim, layout and device) unless it names them itself.
// 2. Streamlit 1.67 adds an entry (history.pushState) for every change of the query
//    that the server sends during a run; those are corrections of the entry the visitor
//    is on, never moves: a push that keeps the page replaces the current entry instead.
(function () {
  if (window.__ropeLinks) return;  // once per document
  window.__ropeLinks = true;
  const CARRIED = __CARRIED__;
  const history = window.history;
  const push = history.pushState.bind(history);
  const replace = history.replaceState.bind(history);
  history.pushState = function (state, unused, url) {
    const next = url == null ? location : new URL(url, location.href);
    return (next.pathname === location.pathname ? replace : push)(state, unused, url);
  };

  const LINKS = 'a[data-rope-link], [data-testid="stPageLink"] a[href]';
  function linkOf(event) {
    const a = event.target instanceof Element ? event.target.closest(LINKS) : null;
    return a && a.target !== '_blank' ? a : null;
  }
  // The address a link opens: its own values, plus the viewer's settings it does not name.
  // (Streamlit writes a page link to the default page as "?query": that page is "./".)
  // A link whose href shows its whole address (below) keeps its own address here, until
  // the page draws it with another.
  const own = new WeakMap();
  function address(a) {
    const seen = own.get(a);
    let href = a.getAttribute('href') || '';
    if (seen && seen.whole === href) href = seen.href;
    const url = new URL(href === '' || href.startsWith('?') ? './' + href : href,
                        location.href);
    const here = new URLSearchParams(location.search);
    for (const key of CARRIED) {
      if (!url.searchParams.has(key)) {
        for (const value of here.getAll(key)) url.searchParams.append(key, value);
      }
    }
    return {url: url, href: href};
  }
  // The href shows the whole address, for a middle click, "open in a new tab" and
  // "copy link address".
  function show(event) {
    const a = linkOf(event);
    if (!a) return;
    const {url, href} = address(a);
    own.set(a, {href: href, whole: url.href});
    a.setAttribute('href', url.href);
  }
  for (const type of ['pointerover', 'focusin', 'contextmenu']) {
    window.addEventListener(type, show, true);
  }
  window.addEventListener('click', function (event) {
    const a = linkOf(event);
    if (!a || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey
        || event.altKey || a.hasAttribute('disabled')) return;
    const url = address(a).url;
    if (url.origin !== location.origin) return;
    event.preventDefault();
    event.stopPropagation();  // before Streamlit's own handler of page links
    if (url.pathname + url.search === location.pathname + location.search) return;
    push({}, '', url.href);
    window.dispatchEvent(new PopStateEvent('popstate', {state: {}}));
    // On a narrow window the sidebar covers the page: close it, as Streamlit's own
    // navigation does on a phone.
    if (window.innerWidth < 768 && a.closest('[data-testid="stSidebar"]')) {
      const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
      if (close) close.click();
    }
  }, true);
})();
