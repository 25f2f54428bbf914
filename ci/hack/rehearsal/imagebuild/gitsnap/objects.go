package gitsnap

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"
)

// maxObject caps one object read into memory: the largest file of the
// pinned trees is far below it.
const maxObject = 256 << 20

// objects reads raw objects through one `git cat-file --batch` and checks
// that each hashes to its name.
type objects struct {
	repo Repo
	in   io.WriteCloser
	out  *bufio.Reader
	wait func() error
	errb *bytes.Buffer
}

func (r Repo) objects(ctx context.Context) (*objects, error) {
	cmd := r.command(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file in %s: %w", r.Dir, err)
	}
	return &objects{repo: r, in: in, out: bufio.NewReaderSize(out, 1<<16), wait: cmd.Wait, errb: &errb}, nil
}

func (o *objects) close() error {
	o.in.Close()
	if err := o.wait(); err != nil {
		return fmt.Errorf("git cat-file --batch in %s: %w: %s", o.repo.Dir, err, strings.TrimSpace(o.errb.String()))
	}
	return nil
}

// read returns the content of object oid, which must be of type typ and
// hash to oid.
func (o *objects) read(oid, typ string) ([]byte, error) {
	if !oidRe.MatchString(oid) {
		return nil, fmt.Errorf("%q is not an object name", oid)
	}
	if _, err := io.WriteString(o.in, oid+"\n"); err != nil {
		return nil, o.failed(oid, err)
	}
	header, err := o.out.ReadString('\n')
	if err != nil {
		return nil, o.failed(oid, err)
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return nil, fmt.Errorf("git directory %s lacks object %s (a %s): fetch a complete snapshot", o.repo.Dir, oid, typ)
	}
	if len(f) != 3 || f[0] != oid {
		return nil, fmt.Errorf("git cat-file in %s answered %q for %s", o.repo.Dir, strings.TrimSpace(header), oid)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 || size > maxObject {
		return nil, fmt.Errorf("object %s in %s: size %q (at most %d bytes are read)", oid, o.repo.Dir, f[2], maxObject)
	}
	body := make([]byte, size+1)
	if _, err := io.ReadFull(o.out, body); err != nil {
		return nil, o.failed(oid, err)
	}
	body = body[:size]
	if f[1] != typ {
		return nil, fmt.Errorf("object %s in %s is a %s, want a %s", oid, o.repo.Dir, f[1], typ)
	}
	if got := objectHash(oid, typ, body); got != oid {
		return nil, fmt.Errorf("object %s in %s hashes to %s: the git directory's object store is corrupt or altered; fetch the snapshot again",
			oid, o.repo.Dir, got)
	}
	return body, nil
}

func (o *objects) failed(oid string, err error) error {
	return fmt.Errorf("git cat-file --batch in %s, reading %s: %w: %s", o.repo.Dir, oid, err, strings.TrimSpace(o.errb.String()))
}

// objectHash is git's name of an object: the hash of "TYPE SIZE\0" and the
// content, SHA-1 or SHA-256 by the length of the name it is checked
// against.
func objectHash(oid, typ string, body []byte) string {
	var h hash.Hash = sha1.New()
	if len(oid) == 64 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "%s %d\x00", typ, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Commit is what the package reads of a commit object.
type Commit struct {
	Tree string
	// Time is the committer time (what `git log --format=%cI` shows).
	Time time.Time
}

// parseCommit reads a commit object's tree and committer lines.
func parseCommit(oid string, body []byte) (Commit, error) {
	var c Commit
	head, _, _ := bytes.Cut(body, []byte("\n\n"))
	for _, line := range strings.Split(string(head), "\n") {
		switch k, v, _ := strings.Cut(line, " "); k {
		case "tree":
			if c.Tree == "" {
				c.Tree = v
			}
		case "committer":
			t, err := signatureTime(v)
			if err != nil {
				return Commit{}, fmt.Errorf("commit %s: committer %q: %w", oid, v, err)
			}
			c.Time = t
		}
	}
	if !oidRe.MatchString(c.Tree) || len(c.Tree) != len(oid) {
		return Commit{}, fmt.Errorf("commit %s names no tree", oid)
	}
	if c.Time.IsZero() {
		return Commit{}, fmt.Errorf("commit %s has no committer", oid)
	}
	return c, nil
}

// signatureTime reads "Name <email> UNIX ±HHMM".
func signatureTime(sig string) (time.Time, error) {
	i := strings.LastIndexByte(sig, '>')
	if i < 0 {
		return time.Time{}, fmt.Errorf("no email")
	}
	f := strings.Fields(sig[i+1:])
	if len(f) != 2 || len(f[1]) != 5 {
		return time.Time{}, fmt.Errorf("no time and zone")
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	hh, err1 := strconv.Atoi(f[1][1:3])
	mm, err2 := strconv.Atoi(f[1][3:5])
	if err1 != nil || err2 != nil || (f[1][0] != '+' && f[1][0] != '-') {
		return time.Time{}, fmt.Errorf("zone %q", f[1])
	}
	off := hh*3600 + mm*60
	if f[1][0] == '-' {
		off = -off
	}
	return time.Unix(sec, 0).In(time.FixedZone(f[1], off)), nil
}

// entry is one entry of a tree object.
type entry struct {
	Mode string
	Name string
	OID  string
}

// parseTree reads a tree object: entries of "MODE NAME\0" and the raw
// object name. Names that are empty, "." or "..", or hold a slash, and a
// name given twice are refused (git fsck refuses them too).
func parseTree(oid string, body []byte) ([]entry, error) {
	size := len(oid) / 2
	var out []entry
	seen := map[string]bool{}
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp < 0 || nul < sp || len(body) < nul+1+size {
			return nil, fmt.Errorf("tree %s is malformed", oid)
		}
		e := entry{Mode: string(body[:sp]), Name: string(body[sp+1 : nul]), OID: hex.EncodeToString(body[nul+1 : nul+1+size])}
		body = body[nul+1+size:]
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsRune(e.Name, '/') || seen[e.Name] {
			return nil, fmt.Errorf("tree %s has an entry named %q, which git refuses", oid, e.Name)
		}
		seen[e.Name] = true
		out = append(out, e)
	}
	return out, nil
}
