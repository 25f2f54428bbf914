// Package moduletest holds engine-free tests of the Dagger module as a
// whole: its Go source (pragmas, docs, nonce), the CI files that call it,
// dagger.json, and agreement with the labctl source it drives. It has no
// code of its own and never imports the generated dagger package.
package moduletest
