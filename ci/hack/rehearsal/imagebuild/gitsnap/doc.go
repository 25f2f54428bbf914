// Package gitsnap reads pinned sources out of git directories a maintainer
// hands to `rehearse images` and `rehearse charts` (--git-dir,
// --kind-git-dir, --kube-network-policies-git-dir), which run as root. A
// git directory is data, not a program: its config and attributes are not
// git objects, so a commit pin says nothing about them, and `git archive`
// or a checkout runs the filters they name (a `* filter=x` line in
// info/attributes and `filter.x.smudge = sh -c …` in config run as root).
//
// So nothing here asks git to produce file contents. git is only a reader
// of raw objects (`git cat-file --batch`: no filters, no attributes, no
// textconv) and of refs (rev-parse, for-each-ref); every object read is
// hashed here and must hash to the name it was asked for, from the pinned
// commit down to each blob, so the extracted tree is the pinned commit's
// whatever the object store, replace refs or grafts say. The files are
// written by this package, inside an os.Root (no path or symbolic link
// leaves the destination), with modes from the tree only (0644, 0755,
// symbolic links; a submodule is an empty directory, as git archive
// writes it). Attributes of the tree itself (export-ignore, export-subst)
// are not applied either: the tree is extracted as a checkout holds it.
//
// Every git command runs with no system or global configuration
// (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null), no attributes file,
// no replace objects, no terminal prompt, no pager, and with every
// transport refused (GIT_ALLOW_PROTOCOL names none, so a partial clone's
// lazy fetch of a missing object cannot run a remote's upload-pack or ssh
// command; the object is reported missing instead).
//
// What remains trusted: the git binary, and that reading a repository's
// own config for these read-only plumbing commands executes nothing from
// it (git runs configured programs for filters, textconv, hooks, fsmonitor,
// pagers and transports, none of which these commands use with the
// environment above); which commit a tag names is git's answer, checked
// against the pin by the callers; SHA-1 second-preimage resistance (a
// SHA-256 repository's objects are hashed with SHA-256).
package gitsnap
