// Package doccmd checks the command lines a Markdown document shows
// against a cobra command tree, so that a README never shows a command,
// flag or argument the binary refuses. Nothing is run, so commands that
// need Docker, root or a network are checked too.
package doccmd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var (
	codeBlock  = regexp.MustCompile("(?s)```(?:sh|bash)?\n(.*?)```")
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
)

// Lines returns every command line of a Markdown document: lines of its
// code blocks (continuations joined, a leading sudo dropped) and inline
// code spans that start with one of prefixes.
func Lines(doc string, prefixes []string) []string {
	var out []string
	starts := func(s string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
		return false
	}
	for _, m := range codeBlock.FindAllStringSubmatch(doc, -1) {
		joined := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, l := range strings.Split(joined, "\n") {
			// The maintainers' rehearsal runs as root: `sudo bin/rehearse …`.
			if l = strings.TrimPrefix(strings.TrimSpace(l), "sudo "); starts(l) {
				out = append(out, l)
			}
		}
	}
	for _, m := range inlineCode.FindAllStringSubmatch(codeBlock.ReplaceAllString(doc, ""), -1) {
		if starts(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Check parses one command line, which starts with one of prefixes,
// against the command tree root without running it and without touching
// the commands' flag variables: the subcommand exists, it knows the flags,
// their values have the right type and it accepts the arguments.
func Check(root *cobra.Command, line string, prefixes []string) error {
	words, err := shellWords(line)
	if err != nil {
		return err
	}
	for _, p := range prefixes {
		if n := len(strings.Fields(p)); strings.HasPrefix(line, p) {
			words = words[n:]
			break
		}
	}
	cmd, rest, err := root.Find(words)
	if err != nil {
		return err
	}
	fs := pflag.NewFlagSet(cmd.CommandPath(), pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	copyFlags := func(f *pflag.Flag) {
		c := *f
		c.Value = &typedValue{typ: f.Value.Type()}
		fs.AddFlag(&c)
	}
	cmd.LocalFlags().VisitAll(copyFlags) // merges the command's own persistent flags too
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if fs.Lookup(f.Name) == nil {
			copyFlags(f)
		}
	})
	if err := fs.Parse(rest); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	args := fs.Args()
	// A command that groups others takes no argument but a subcommand's
	// name, whatever Args it was given to answer a typo.
	if cmd.HasSubCommands() && len(args) > 0 {
		return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	if !cmd.Runnable() {
		return fmt.Errorf("%s is not a command that runs (arguments %q)", cmd.CommandPath(), args)
	}
	if err := cmd.ValidateArgs(args); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	return nil
}

// shellWords splits a command line as a POSIX shell would for the forms the
// documents use: quotes, a trailing comment, and the end of the command at
// a redirection, pipe, `&`, `&&` or `;`.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flush()
		case (r == '#' && !inWord) || strings.ContainsRune(">|&;", r):
			flush()
			return words, nil
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	flush()
	return words, nil
}

// typedValue stands in for a flag's value: it checks a value parses as the
// flag's type and stores nothing, so parsing a README line leaves the
// commands' own flag variables alone.
type typedValue struct{ typ string }

func (v *typedValue) String() string { return "" }
func (v *typedValue) Type() string   { return v.typ }
func (v *typedValue) Set(s string) error {
	var err error
	switch v.typ {
	case "bool":
		_, err = strconv.ParseBool(s)
	case "int", "int32", "int64", "count":
		_, err = strconv.ParseInt(s, 10, 64)
	case "uint", "uint32", "uint64":
		_, err = strconv.ParseUint(s, 10, 64)
	case "float32", "float64":
		_, err = strconv.ParseFloat(s, 64)
	case "duration":
		_, err = time.ParseDuration(s)
	}
	return err
}
