/**
 * The dashboard's one stylesheet and its one small script, served from memory: no front-end build step. The pages
 * work without the script (every action is a plain form); with it, live.js listens to the server-sent events of
 * /_dashboard/live and swaps in the regions of the page that changed, never one the user is in.
 */
export const STYLE = `:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0a5bd3;--ok:#116329;--bad:#a40e26;--wait:#7d4e00}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.3rem .6rem;z-index:2}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.6rem 1.2rem;border-bottom:1px solid var(--line);background:var(--soft)}
header .brand{font-weight:600}header nav ul{display:flex;flex-wrap:wrap;gap:.2rem .9rem;list-style:none;margin:0;padding:0}
header nav a[aria-current=page]{font-weight:600;color:var(--fg);text-decoration:none;border-bottom:2px solid var(--accent)}
.clock{margin-left:auto;color:var(--muted);font-variant-numeric:tabular-nums}#live{color:var(--muted);font-size:.85rem}
main{padding:1rem 1.2rem 3rem;max-width:90rem}h1{font-size:1.4rem;margin:.4rem 0 1rem}h2{font-size:1.12rem;margin:1.6rem 0 .6rem}h3{font-size:1rem;margin:1.2rem 0 .4rem}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem;font-size:.92rem}caption{text-align:left;color:var(--muted);padding:.2rem 0}
th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
pre{background:var(--soft);border:1px solid var(--line);padding:.6rem;overflow:auto;max-height:30rem;white-space:pre-wrap;word-break:break-all}
.state{display:inline-block;padding:0 .45rem;border-radius:1rem;font-size:.82rem;border:1px solid currentColor}
.state-succeeded,.state-delivered,.state-active,.state-ACTIVE{color:var(--ok)}.state-failed,.state-cancelled{color:var(--bad)}
.state-processing,.state-pending,.state-pending_approval{color:var(--wait)}.state-no_endpoint{color:var(--muted)}
form.inline{display:inline-flex;gap:.3rem;align-items:center;margin:0 .3rem .2rem 0}
form.filters,form.stack{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:flex-end;margin:.4rem 0 1rem;padding:.6rem;background:var(--soft);border:1px solid var(--line)}
form.filters label,form.stack label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted);gap:.15rem}
input,select{font:inherit;padding:.25rem .4rem;border:1px solid #8c959f;border-radius:4px;min-width:6rem}
button{font:inherit;padding:.25rem .75rem;border:1px solid #1f6feb;border-radius:4px;background:#1f6feb;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.4rem 0 1rem}dt{color:var(--muted)}dd{margin:0;word-break:break-all}
.notice{padding:.5rem .8rem;border:1px solid var(--ok);background:#dafbe1;margin:0 0 1rem}.notice.error{border-color:var(--bad);background:#ffebe9}
.muted{color:var(--muted)}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(18rem,1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.4rem .9rem}.pager{display:flex;gap:1rem;margin:.4rem 0}
details>summary{cursor:pointer}ul.plain{margin:.2rem 0;padding-left:1.1rem}
`

export const SCRIPT = `(() => {
  'use strict'
  if (!window.EventSource || !window.fetch || !window.DOMParser) return
  const status = document.getElementById('live')
  const say = (text) => { if (status) status.textContent = text }
  const source = new EventSource(document.body.dataset.live)
  let busy = false
  let again = false
  const inside = (el) => el.contains(document.activeElement) && document.activeElement !== document.body
  async function refresh() {
    if (busy) { again = true; return }
    busy = true
    try {
      const res = await fetch(location.href, {credentials: 'same-origin', headers: {accept: 'text/html'}})
      if (!res.ok) return
      const next = new DOMParser().parseFromString(await res.text(), 'text/html')
      // each live region is replaced unless the user is in it (typing, a focused button): it catches up next time
      for (const region of document.querySelectorAll('[data-live]')) {
        const fresh = next.querySelector('[data-live="' + region.dataset.live + '"]')
        if (fresh && !inside(region) && fresh.innerHTML !== region.innerHTML) region.replaceWith(document.importNode(fresh, true))
      }
      say('Live: updated ' + new Date().toLocaleTimeString())
    } catch (e) {
      say('Live: update failed')
    } finally {
      busy = false
      if (again) { again = false; refresh() }
    }
  }
  source.addEventListener('open', () => say('Live'))
  source.addEventListener('error', () => say('Live: reconnecting'))
  source.addEventListener('change', refresh)
})()
`
