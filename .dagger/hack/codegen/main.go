// Command sdl2intro converts Dagger's published GraphQL schema (SDL) into the
// introspection JSON that github.com/dagger/dagger/cmd/codegen reads with
// --introspection-json-path, so the module bindings can be generated without
// a running engine.
//
// Usage: sdl2intro SCHEMA.graphqls SCHEMA_VERSION > introspection.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sdl2intro SCHEMA.graphqls SCHEMA_VERSION")
		os.Exit(2)
	}
	sdl, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdl2intro:", err)
		os.Exit(1)
	}
	resp, err := convert(string(sdl), os.Args[1], os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdl2intro:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(resp); err != nil {
		fmt.Fprintln(os.Stderr, "sdl2intro:", err)
		os.Exit(1)
	}
}

// convert parses the SDL (with GraphQL's prelude) and returns the
// introspection response for it.
func convert(sdl, name, version string) (*response, error) {
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: name, Input: sdl})
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	if schema.Query == nil {
		return nil, fmt.Errorf("%s: no query type", name)
	}
	return fromSchema(schema, version), nil
}
