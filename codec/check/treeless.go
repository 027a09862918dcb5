//go:build !(js && wasm)

package check

// treeLess says whether frames no rule reads values of are read on the
// codec's tree-less JSON path (kwire check's speed). The browser's build
// (capture.wasm) reads every frame as a tree instead, so it links no
// tree-less path.
const treeLess = true
