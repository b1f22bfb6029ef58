package web

// writeLayout writes the frame every page shares (head, navigation, period picker) around
// content.
func writeLayout(h *htmlPage, l layout, content func(*htmlPage, layout)) {
	h.f(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%v · gpucost</title>
<link rel="stylesheet" href="%v">
<link rel="stylesheet" href="%v">
<link rel="icon" href="%v" type="image/svg+xml">
`, l.Title, h.asset("vendor/uPlot.min.css"), h.asset("app.css"), h.asset("favicon.svg"))
	if l.Viewer != nil {
		h.f(`<script src="%v" defer></script>
<script src="%v" defer></script>
<script src="%v" defer></script>`, h.asset("vendor/uPlot.iife.min.js"), h.asset("vendor/echarts.min.js"), h.asset("app.js"))
	}
	h.s(`
</head>
<body>
<header class="top">
  <a class="brand" href="/">gpucost</a>
  `)
	if v := l.Viewer; v != nil {
		h.s(`
  <nav aria-label="Pages">
    `)
		for _, n := range l.Nav {
			h.f(`<a href="%v"`, urlStart(n.Path))
			if n.Current {
				h.s(` aria-current="page"`)
			}
			h.f(`>%v</a>`, n.Title)
		}
		h.f(`
  </nav>
  <form class="logout" method="post" action="/logout">
    <span class="who" title="token %v">%v · %v</span>
    <input type="hidden" name="csrf" value="%v">
    <button type="submit">Log out</button>
  </form>
  `, v.Token.Name, v.Token.Name, v.Token.Role, v.CSRF)
	}
	h.s(`
</header>
<main>
`)
	if p := l.Page; l.Viewer != nil && p != nil && (p.Since != 0 || len(p.By) > 0) {
		writePicker(h, l)
	}
	h.f(`
<h1>%v</h1>
`, l.Title)
	content(h, l)
	h.s(`
</main>
<footer>gpucost · amounts in cents, rounded so that every table adds up to its total (the API gives them exact) · times in UTC</footer>
</body>
</html>
`)
}

// writePicker writes the form that picks a page's period, grouping and filter.
func writePicker(h *htmlPage, l layout) {
	p, q := l.Page, l.Query
	h.f(`
<form class="picker" method="get" action="%v">
  `, urlStart(l.Path))
	if p.Since != 0 {
		h.s(`<label>Period
    <select name="since" data-autosubmit>
      `)
		for _, v := range l.Periods {
			h.f(`<option value="%v"`, v)
			if v == q.Since {
				h.s(` selected`)
			}
			h.f(`>last %v</option>`, v)
		}
		h.s(`
      `)
		if s := q.Since; s != "" && s != "24h" && s != "7d" && s != "30d" && s != "90d" {
			h.f(`<option value="%v" selected>last %v</option>`, s, s)
		}
		h.s(`
    </select></label>`)
	}
	h.s(`
  `)
	if len(p.By) > 0 {
		h.s(`<label>By
    <select name="by" data-autosubmit>
      `)
		for _, v := range p.By {
			h.f(`<option value="%v"`, v)
			if v == q.By {
				h.s(` selected`)
			}
			h.f(`>%v</option>`, v)
		}
		h.s(`
    </select></label>`)
	}
	hint := p.FilterHint
	if hint == "" {
		hint = "team=ml,namespace=serving"
	}
	h.f(`
  <label>Filter <input type="text" name="filter" value="%v" placeholder="%v" size="28"></label>
  <button type="submit">Apply</button>
  `, q.Filter, hint)
	if !q.From.IsZero() {
		h.f(`<span class="period">%v – %v</span>`, datetime(q.From), datetime(q.To))
	}
	h.s(`
</form>
`)
}

// writeError writes an error page's message.
func writeError(h *htmlPage, l layout) {
	h.f(`
<section class="card error" role="alert">
  <p>%v</p>
  <p>`, l.Error)
	if l.Viewer != nil {
		h.s(`<a href="/">Back to the overview</a>`)
	} else {
		h.s(`<a href="/login">Log in</a>`)
	}
	h.s(`</p>
</section>
`)
}

// writeLogin writes the login form.
func writeLogin(h *htmlPage, l layout) {
	d := l.Data.(loginPage)
	h.s(`
<section class="card login">
  <p>Log in with an API token. Create one with <code>gpucost token create --name NAME --role viewer</code>; viewer and admin tokens may open the dashboard.</p>
  `)
	if d.Error != "" {
		h.f(`<p class="flash" role="alert">%v</p>`, d.Error)
	}
	h.f(`
  <form method="post" action="/login" autocomplete="off">
    <input type="hidden" name="csrf" value="%v">
    <input type="hidden" name="next" value="%v">
    <label for="token">API token</label>
    <input id="token" name="token" type="password" required placeholder="gpc_…" spellcheck="false" autofocus>
    <button type="submit">Log in</button>
  </form>
</section>
`, d.CSRF, d.Next)
}
