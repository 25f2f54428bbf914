package main

import (
	"encoding/json"
	"testing"

	"github.com/dagger/dagger/cmd/codegen/introspection"
)

const sdl = `
"""Marks a type as expecting an ID of another type."""
directive @expectedType(name: String!) on ARGUMENT_DEFINITION | FIELD_DEFINITION

interface Node { id: ID! }

"""A box."""
type Box implements Node {
  id: ID!
  """Old way."""
  size: Int! @deprecated(reason: "Use dims")
  gone: Int @deprecated
  with(
    """How many."""
    count: Int = 3
    mode: Mode = FAST
    tags: [String!] = ["a"]
    other: ID @expectedType(name: "Box")
  ): Box!
}

enum Mode {
  FAST
  SLOW @deprecated(reason: "too slow")
}

input Opts { name: String = "x" }

type Query { box: Box }
`

// The output must decode into the codegen's own introspection types, with
// the accessors the generator uses returning what the SDL says.
func TestConvertDecodesAsCodegenIntrospection(t *testing.T) {
	resp, err := convert(sdl, "test.graphqls", "v9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var got introspection.Response
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != "v9.9.9" || got.Schema.QueryType.Name != "Query" {
		t.Fatalf("version %q, query %q", got.SchemaVersion, got.Schema.QueryType.Name)
	}
	for _, tt := range got.Schema.Types {
		if len(tt.Name) > 1 && tt.Name[:2] == "__" {
			t.Errorf("meta-type %s leaked into the output", tt.Name)
		}
	}
	box := got.Schema.Types.Get("Box")
	if box == nil || box.Kind != introspection.TypeKindObject || box.Description != "A box." {
		t.Fatalf("Box = %+v", box)
	}
	if len(box.Interfaces) != 1 || box.Interfaces[0].Name != "Node" {
		t.Errorf("Box interfaces = %+v, want Node", box.Interfaces)
	}
	fields := map[string]*introspection.Field{}
	for _, f := range box.Fields {
		fields[f.Name] = f
	}
	if f := fields["size"]; f == nil || !f.IsDeprecated || f.DeprecationReason == nil || *f.DeprecationReason != "Use dims" ||
		len(f.Directives) != 0 {
		t.Errorf("size = %+v, want deprecated with reason \"Use dims\" and no directive entries", f)
	}
	if f := fields["gone"]; f == nil || !f.IsDeprecated || *f.DeprecationReason != "No longer supported" {
		t.Errorf("gone = %+v, want GraphQL's default deprecation reason", f)
	}
	with := fields["with"]
	if with == nil || with.TypeRef.Kind != introspection.TypeKindNonNull || with.TypeRef.OfType.Name != "Box" {
		t.Fatalf("with = %+v, want Box!", with)
	}
	args := map[string]introspection.InputValue{}
	for _, a := range with.Args {
		args[a.Name] = a
	}
	defaults := map[string]string{"count": "3", "mode": "FAST", "tags": `["a"]`}
	for name, want := range defaults {
		a := args[name]
		if a.DefaultValue == nil || *a.DefaultValue != want {
			t.Errorf("arg %s default = %v, want %s", name, a.DefaultValue, want)
		}
	}
	if args["count"].Description != "How many." || !args["count"].IsOptional() {
		t.Errorf("count = %+v", args["count"])
	}
	if tags := args["tags"].TypeRef; !tags.IsList() || tags.OfType.Kind != introspection.TypeKindNonNull {
		t.Errorf("tags type = %+v, want [String!]", tags)
	}
	other := args["other"]
	if et := other.Directives.ExpectedType(); et != "Box" {
		t.Errorf("other @expectedType = %q, want Box (a JSON-encoded directive argument)", et)
	}
	mode := got.Schema.Types.Get("Mode")
	if mode == nil || len(mode.EnumValues) != 2 || !mode.EnumValues[1].IsDeprecated {
		t.Errorf("Mode = %+v, want FAST and a deprecated SLOW", mode)
	}
	if node := got.Schema.Types.Get("Node"); node == nil || len(node.PossibleTypes) != 1 || node.PossibleTypes[0].Name != "Box" {
		t.Errorf("Node possible types = %+v, want Box", node)
	}
	if opts := got.Schema.Types.Get("Opts"); opts == nil || len(opts.InputFields) != 1 || *opts.InputFields[0].DefaultValue != `"x"` {
		t.Errorf("Opts = %+v, want name with default \"x\"", opts)
	}
	var expected *introspection.DirectiveDef
	for _, d := range got.Schema.Directives {
		if d.Name == "expectedType" {
			expected = d
		}
	}
	if expected == nil || len(expected.Args) != 1 || len(expected.Locations) != 2 {
		t.Errorf("directive expectedType = %+v", expected)
	}
}

func TestConvertRejectsBadSDL(t *testing.T) {
	if _, err := convert("type Query { x: Nope }", "bad.graphqls", "v0"); err == nil {
		t.Fatal("unknown type accepted")
	}
}
