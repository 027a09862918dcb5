// Package playground holds the static files of the browser playground:
// index.html, app.js, worker.js, style.css and sw.js. The site generator
// copies them next to kwire.wasm, capture.wasm, wasm_exec.js and grid.css
// (render.CSS); see README.md for that contract and the link format.
package playground

import "embed"

// Static is the playground's files, under "static/".
//
//go:embed static
var Static embed.FS
