package source

// Paths under the workspace content volume. The volume is written by the
// tenants (<root>/<namespace> is one workspace's subtree), so a path the
// operator builds from names (<root>/<ns>/arena/sources/<project>) must not
// be turned into another namespace's path by a symbolic link the tenant
// planted in one of its components: <root>/<ns> -> other, or
// <root>/<ns>/arena -> ../other/arena. os.Root alone does not stop that: it
// refuses a link that leaves the Root, but follows one that stays inside it,
// and <root>/other is inside the content root.
//
// So every such path is opened from the content root down, one component
// at a time, through os.Root: each component is Lstat'ed through its
// parent's Root (a symbolic link is refused, never followed), opened as an
// os.Root of its own, and the opened directory is checked to be the one
// that was Lstat'ed (same device and inode), so a component swapped for a
// link between the two calls is refused too. What is read or written below
// goes through the last Root (a read-only billy filesystem for go-git, or
// the Root itself for a snapshot), so no later path resolution starts
// above it.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/helper/chroot"
)

// ErrLinkInPath is wrapped by the error of opening a content path one of
// whose components is a symbolic link (or was swapped for one while it was
// opened).
var ErrLinkInPath = errors.New("a component of the path is a symbolic link, which is not followed")

// errNotDirectory: a component of a content path is not a directory.
var errNotDirectory = errors.New("a component of the path is not a directory")

// OpenContentDir opens root/rel as an os.Root, rel being a relative,
// slash-separated path ("" or "." is root itself). Each component of rel
// must be a real directory, never a symbolic link; create makes the missing
// ones (mode 0755). root is the operator's own mount and is trusted.
func OpenContentDir(root, rel string, create bool) (*os.Root, error) {
	top, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	dir, err := OpenDirNoLinks(top, rel, create)
	if dir != top {
		_ = top.Close()
	}
	return dir, err
}

// OpenDirNoLinks opens parent/rel, one component at a time, as
// OpenContentDir does. It returns parent itself for an empty rel; the
// Roots opened on the way are closed.
func OpenDirNoLinks(parent *os.Root, rel string, create bool) (*os.Root, error) {
	parts, err := relParts(rel)
	if err != nil {
		return nil, err
	}
	cur := parent
	for i, name := range parts {
		next, err := openChildNoLink(cur, name, create)
		if cur != parent {
			_ = cur.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(parts[:i+1], "/"), err)
		}
		cur = next
	}
	return cur, nil
}

// relParts splits a relative slash path into its components, refusing an
// absolute path and any "..".
func relParts(rel string) ([]string, error) {
	if rel == "" || rel == "." {
		return nil, nil
	}
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") {
		return nil, fmt.Errorf("path %q is not relative", rel)
	}
	var parts []string
	for _, p := range strings.Split(path.Clean(rel), "/") {
		if p == ".." {
			return nil, fmt.Errorf("path %q leaves its directory", rel)
		}
		if p != "." && p != "" {
			parts = append(parts, p)
		}
	}
	return parts, nil
}

// openChildNoLink opens the directory name of parent, refusing a symbolic
// link, a non-directory, and a directory that is not the one Lstat saw.
func openChildNoLink(parent *os.Root, name string, create bool) (*os.Root, error) {
	fi, err := parent.Lstat(name)
	if create && errors.Is(err, fs.ErrNotExist) {
		if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = parent.Lstat(name)
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, ErrLinkInPath
	}
	if !fi.IsDir() {
		return nil, errNotDirectory
	}
	child, err := parent.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	opened, err := child.Stat(".")
	if err != nil || !os.SameFile(fi, opened) {
		_ = child.Close()
		return nil, ErrLinkInPath
	}
	return child, nil
}

// errReadOnly is returned by every write of a rootFS.
var errReadOnly = errors.New("the hosted repository is opened read-only")

// maxDirEntries bounds a ReadDir of the hosted repository (objects/pack,
// refs/...): a directory the tenant filled with millions of entries is an
// error, not an allocation.
const maxDirEntries = 100000

// rootFS is a read-only billy.Filesystem over an os.Root: go-git reads a
// hosted repository through it, so every file it opens is resolved inside
// the repository's git directory (a link leaving it is refused by os.Root),
// from a directory handle opened with OpenDirNoLinks, never by a path from
// the content root again.
type rootFS struct {
	root *os.Root
	// bounds judge every file before go-git reads it (hostedread.go).
	bounds readBounds
}

func newRootFS(root *os.Root, bounds readBounds) *rootFS { return &rootFS{root: root, bounds: bounds} }

// rel is a billy path as a path relative to the Root ("." for the root).
func (f *rootFS) rel(name string) string {
	c := filepath.Clean(string(filepath.Separator) + filepath.FromSlash(name))
	c = strings.TrimPrefix(c, string(filepath.Separator))
	if c == "" {
		return "."
	}
	return c
}

func (f *rootFS) Create(string) (billy.File, error) { return nil, errReadOnly }

func (f *rootFS) Open(name string) (billy.File, error) { return f.OpenFile(name, os.O_RDONLY, 0) }

func (f *rootFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		return nil, errReadOnly
	}
	rel := f.rel(name)
	file, err := f.root.OpenFile(rel, flag, perm)
	if err != nil {
		return nil, err
	}
	if err := f.bounds.judge(filepath.ToSlash(rel), file); err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("%s: %w", filepath.ToSlash(rel), err)
	}
	return &rootFile{File: file, name: name}, nil
}

func (f *rootFS) Stat(name string) (os.FileInfo, error)  { return f.root.Stat(f.rel(name)) }
func (f *rootFS) Lstat(name string) (os.FileInfo, error) { return f.root.Lstat(f.rel(name)) }
func (f *rootFS) Readlink(name string) (string, error)   { return f.root.Readlink(f.rel(name)) }
func (f *rootFS) Rename(string, string) error            { return errReadOnly }
func (f *rootFS) Remove(string) error                    { return errReadOnly }
func (f *rootFS) Join(elem ...string) string             { return filepath.Join(elem...) }
func (f *rootFS) TempFile(string, string) (billy.File, error) {
	return nil, errReadOnly
}
func (f *rootFS) MkdirAll(string, os.FileMode) error { return errReadOnly }
func (f *rootFS) Symlink(string, string) error       { return errReadOnly }

func (f *rootFS) ReadDir(name string) ([]os.FileInfo, error) {
	d, err := f.root.Open(f.rel(name))
	if err != nil {
		return nil, err
	}
	defer func() { _ = d.Close() }()
	entries, err := d.ReadDir(maxDirEntries + 1)
	if err != nil && len(entries) == 0 {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	if len(entries) > maxDirEntries {
		return nil, fmt.Errorf("%s has more than %d entries", name, maxDirEntries)
	}
	out := make([]os.FileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, fi)
	}
	return out, nil
}

func (f *rootFS) Chroot(p string) (billy.Filesystem, error) { return chroot.New(f, p), nil }

// Root names the filesystem for go-git's messages: it is the git directory.
func (f *rootFS) Root() string { return string(filepath.Separator) }

func (f *rootFS) Capabilities() billy.Capability {
	return billy.ReadCapability | billy.SeekCapability
}

// rootFile is an *os.File of a rootFS under its billy name.
type rootFile struct {
	*os.File
	name string
}

func (f *rootFile) Name() string  { return f.name }
func (f *rootFile) Lock() error   { return nil }
func (f *rootFile) Unlock() error { return nil }
