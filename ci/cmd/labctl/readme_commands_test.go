package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// The documents whose labctl command lines must parse: the README and the
// maintainers' documents it links to.
var commandDocs = []string{
	"README.md",
	"ci/e2e/README.md",
	"ci/testenv/README.md",
	"ci/stages/README.md",
	"ci/render/README.md",
	"ci/lab/README.md",
	"ci/rehearsal/README.md",
}

// labctlPrefixes are the two ways the README runs labctl; a bare `labctl`
// is prose (it is not on PATH), not a command to copy.
var labctlPrefixes = []string{"go run ./ci/cmd/labctl ", "bin/labctl "}

// TestReadmeCommandsParse: every labctl command line in the README and the
// documents beside the code (code blocks and inline code) names a
// subcommand that exists, flags that command knows with values of the right
// type, and arguments it accepts. Nothing is run, so commands that need
// Docker or a network are checked too.
func TestReadmeCommandsParse(t *testing.T) {
	total := 0
	for _, doc := range commandDocs {
		for _, line := range labctlLines(readRepoFile(t, doc)) {
			total++
			t.Logf("%s: %s", doc, line)
			if err := checkLabctlLine(line); err != nil {
				t.Errorf("%s: %q: %v", doc, line, err)
			}
		}
	}
	// The README shows at least the local path, labctl up and the existing
	// platform; fewer means the extraction broke, not that all is well.
	if total < 15 {
		t.Fatalf("only %d labctl command lines found in %v", total, commandDocs)
	}
}

// TestReadmeCommandChecker: the checker refuses what a stale README would
// show, so TestReadmeCommandsParse can fail.
func TestReadmeCommandChecker(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"bin/labctl testenv up --state-dir /tmp/lab &", true},
		{`bin/labctl test -f x.yaml --kubeconfig a=b --backend "a b, c" --parallel 4`, true},
		{"go run ./ci/cmd/labctl test --state-dir /tmp/lab --report-dir reports    # comment", true},
		{"bin/labctl validate my-platform.yaml", true},
		{"bin/labctl bogus", false},
		{"bin/labctl testenv bogus", false},
		{"bin/labctl testenv up --no-such-flag", false},
		{"bin/labctl test --parallel four", false},
		{"bin/labctl up --pull-timeout soon", false},
		{"bin/labctl testenv up surplus", false},
		{`bin/labctl test --backend "unterminated`, false},
	} {
		err := checkLabctlLine(tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err = %v, want ok=%v", tc.line, err, tc.ok)
		}
	}
}

var (
	codeBlock  = regexp.MustCompile("(?s)```(?:sh|bash)?\n(.*?)```")
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
)

// labctlLines returns every labctl command line of a Markdown document:
// lines of its code blocks (continuations joined) and inline code spans
// that start with one of labctlPrefixes.
func labctlLines(doc string) []string {
	var out []string
	starts := func(s string) bool {
		for _, p := range labctlPrefixes {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
		return false
	}
	for _, m := range codeBlock.FindAllStringSubmatch(doc, -1) {
		joined := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, l := range strings.Split(joined, "\n") {
			// The maintainers' rehearsal runs as root: `sudo bin/labctl …`.
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

// checkLabctlLine parses one command line against labctl's command tree
// without running it and without touching the commands' flag variables.
func checkLabctlLine(line string) error {
	words, err := shellWords(line)
	if err != nil {
		return err
	}
	for _, p := range labctlPrefixes {
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
// flag's type and stores nothing, so parsing a README line leaves labctl's
// own flag variables alone.
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
