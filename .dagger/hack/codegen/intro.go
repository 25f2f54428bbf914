package main

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// The shapes below mirror what a GraphQL introspection query returns, plus
// Dagger's extensions (__schemaVersion, directive applications on fields,
// arguments, enum values and types). Field names are the wire names.

type response struct {
	Schema        *schema `json:"__schema"`
	SchemaVersion string  `json:"__schemaVersion"`
}

type named struct {
	Name string `json:"name"`
}

type schema struct {
	QueryType        named           `json:"queryType"`
	MutationType     *named          `json:"mutationType"`
	SubscriptionType *named          `json:"subscriptionType"`
	Types            []*fullType     `json:"types"`
	Directives       []*directiveDef `json:"directives"`
}

type fullType struct {
	Kind          string          `json:"kind"`
	Name          string          `json:"name"`
	Description   string          `json:"description,omitempty"`
	Fields        []*field        `json:"fields,omitempty"`
	InputFields   []*inputValue   `json:"inputFields,omitempty"`
	EnumValues    []*enumValue    `json:"enumValues,omitempty"`
	Interfaces    []*typeRef      `json:"interfaces"`
	PossibleTypes []*typeRef      `json:"possibleTypes"`
	Directives    []*directiveUse `json:"directives"`
}

type field struct {
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	Args              []*inputValue   `json:"args"`
	Type              *typeRef        `json:"type"`
	IsDeprecated      bool            `json:"isDeprecated"`
	DeprecationReason *string         `json:"deprecationReason"`
	Directives        []*directiveUse `json:"directives"`
}

type inputValue struct {
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	Type              *typeRef        `json:"type"`
	DefaultValue      *string         `json:"defaultValue"`
	IsDeprecated      bool            `json:"isDeprecated"`
	DeprecationReason *string         `json:"deprecationReason"`
	Directives        []*directiveUse `json:"directives"`
}

type enumValue struct {
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	IsDeprecated      bool            `json:"isDeprecated"`
	DeprecationReason *string         `json:"deprecationReason"`
	Directives        []*directiveUse `json:"directives"`
}

type typeRef struct {
	Kind   string   `json:"kind"`
	Name   string   `json:"name,omitempty"`
	OfType *typeRef `json:"ofType,omitempty"`
}

type directiveDef struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Locations   []string      `json:"locations"`
	Args        []*inputValue `json:"args"`
}

// directiveUse is one application of a directive; argument values are JSON
// texts, which is how the codegen decodes them.
type directiveUse struct {
	Name string          `json:"name"`
	Args []*directiveArg `json:"args"`
}

type directiveArg struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// fromSchema builds the introspection response. Types and directive
// definitions are sorted by name so the output is stable; GraphQL's own
// meta-types (__Type, …) are left out, as introspection clients expect.
func fromSchema(s *ast.Schema, version string) *response {
	out := &schema{QueryType: named{Name: s.Query.Name}}
	if s.Mutation != nil {
		out.MutationType = &named{Name: s.Mutation.Name}
	}
	if s.Subscription != nil {
		out.SubscriptionType = &named{Name: s.Subscription.Name}
	}
	for _, name := range sortedKeys(s.Types) {
		if strings.HasPrefix(name, "__") {
			continue
		}
		out.Types = append(out.Types, typeOf(s, s.Types[name]))
	}
	for _, name := range sortedKeys(s.Directives) {
		d := s.Directives[name]
		dd := &directiveDef{Name: d.Name, Description: d.Description, Locations: []string{}, Args: args(s, d.Arguments)}
		for _, l := range d.Locations {
			dd.Locations = append(dd.Locations, string(l))
		}
		out.Directives = append(out.Directives, dd)
	}
	return &response{Schema: out, SchemaVersion: version}
}

func typeOf(s *ast.Schema, d *ast.Definition) *fullType {
	t := &fullType{
		Kind:          string(d.Kind),
		Name:          d.Name,
		Description:   d.Description,
		Interfaces:    []*typeRef{},
		PossibleTypes: []*typeRef{},
		Directives:    uses(d.Directives),
	}
	switch d.Kind {
	case ast.Object, ast.Interface:
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			dep, reason := deprecation(f.Directives)
			t.Fields = append(t.Fields, &field{
				Name:              f.Name,
				Description:       f.Description,
				Args:              args(s, f.Arguments),
				Type:              ref(s, f.Type),
				IsDeprecated:      dep,
				DeprecationReason: reason,
				Directives:        uses(f.Directives),
			})
		}
		for _, i := range d.Interfaces {
			t.Interfaces = append(t.Interfaces, &typeRef{Kind: string(ast.Interface), Name: i})
		}
		if d.Kind == ast.Interface {
			t.PossibleTypes = possible(s, d.Name)
		}
	case ast.Union:
		t.PossibleTypes = possible(s, d.Name)
	case ast.InputObject:
		for _, f := range d.Fields {
			dep, reason := deprecation(f.Directives)
			t.InputFields = append(t.InputFields, &inputValue{
				Name:              f.Name,
				Description:       f.Description,
				Type:              ref(s, f.Type),
				DefaultValue:      literal(f.DefaultValue),
				IsDeprecated:      dep,
				DeprecationReason: reason,
				Directives:        uses(f.Directives),
			})
		}
	case ast.Enum:
		for _, v := range d.EnumValues {
			dep, reason := deprecation(v.Directives)
			t.EnumValues = append(t.EnumValues, &enumValue{
				Name:              v.Name,
				Description:       v.Description,
				IsDeprecated:      dep,
				DeprecationReason: reason,
				Directives:        uses(v.Directives),
			})
		}
	}
	return t
}

func args(s *ast.Schema, list ast.ArgumentDefinitionList) []*inputValue {
	out := []*inputValue{}
	for _, a := range list {
		dep, reason := deprecation(a.Directives)
		out = append(out, &inputValue{
			Name:              a.Name,
			Description:       a.Description,
			Type:              ref(s, a.Type),
			DefaultValue:      literal(a.DefaultValue),
			IsDeprecated:      dep,
			DeprecationReason: reason,
			Directives:        uses(a.Directives),
		})
	}
	return out
}

// ref turns a type expression into the nested NON_NULL/LIST/named chain.
func ref(s *ast.Schema, t *ast.Type) *typeRef {
	var inner *typeRef
	if t.Elem != nil {
		inner = &typeRef{Kind: "LIST", OfType: ref(s, t.Elem)}
	} else {
		kind := "SCALAR"
		if d := s.Types[t.NamedType]; d != nil {
			kind = string(d.Kind)
		}
		inner = &typeRef{Kind: kind, Name: t.NamedType}
	}
	if t.NonNull {
		return &typeRef{Kind: "NON_NULL", OfType: inner}
	}
	return inner
}

func possible(s *ast.Schema, name string) []*typeRef {
	out := []*typeRef{}
	defs := append([]*ast.Definition(nil), s.PossibleTypes[name]...)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	for _, d := range defs {
		out = append(out, &typeRef{Kind: string(d.Kind), Name: d.Name})
	}
	return out
}

// uses lists the applied directives except @deprecated, which introspection
// reports through isDeprecated/deprecationReason instead.
func uses(list ast.DirectiveList) []*directiveUse {
	out := []*directiveUse{}
	for _, d := range list {
		if d.Name == "deprecated" {
			continue
		}
		u := &directiveUse{Name: d.Name, Args: []*directiveArg{}}
		for _, a := range d.Arguments {
			u.Args = append(u.Args, &directiveArg{Name: a.Name, Value: jsonValue(a.Value)})
		}
		out = append(out, u)
	}
	return out
}

func deprecation(list ast.DirectiveList) (bool, *string) {
	d := list.ForName("deprecated")
	if d == nil {
		return false, nil
	}
	reason := "No longer supported" // GraphQL's default reason
	if a := d.Arguments.ForName("reason"); a != nil && a.Value != nil {
		reason = a.Value.Raw
	}
	return true, &reason
}

// literal is a default value as GraphQL source text (what introspection's
// defaultValue carries), or nil when there is none.
func literal(v *ast.Value) *string {
	if v == nil {
		return nil
	}
	s := v.String()
	return &s
}

// jsonValue is a directive argument value encoded as JSON.
func jsonValue(v *ast.Value) *string {
	if v == nil {
		return nil
	}
	val, err := v.Value(nil)
	if err != nil {
		s := v.String()
		return &s
	}
	b, err := json.Marshal(val)
	if err != nil {
		s := v.String()
		return &s
	}
	s := string(b)
	return &s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
