package hostdaemon

import (
	"bufio"
	"bytes"
	"path/filepath"
	"sort"
	"strings"
)

// mountsUnder returns the mount points in a /proc/mounts document that are
// dir or below it, deepest first (the order to unmount them in). Fields are
// space separated and the mount point is the second (proc(5) /proc/mounts,
// fstab(5)); spaces and other special characters in it are octal escapes
// (\040), which are decoded.
func mountsUnder(procMounts []byte, dir string) []string {
	dir = filepath.Clean(dir)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(procMounts))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		mp := unescapeOctal(f[1])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Count(out[i], "/") > strings.Count(out[j], "/") })
	return out
}

// unescapeOctal decodes the kernel's \NNN escapes of a mount path.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
