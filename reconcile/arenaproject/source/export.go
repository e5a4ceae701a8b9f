package source

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// SnapshotsRel is where a hosted or external project's snapshots are,
// relative to the content root: <namespace>/arena/sources/<project>/.arena/versions.
func SnapshotsRel(namespace, project string) string {
	return path.Dir(path.Join(namespace, ContentPath(project, "x")))
}

// OpenSnapshotsDir opens the directory of project's snapshots in
// namespace's subtree of the content root (SnapshotsRel), creating what is
// missing. Every component of it must be a real directory: a symbolic link
// the tenant planted on the way (<root>/<ns>/arena -> ../other/arena) is
// refused, not followed (rootfs.go).
func OpenSnapshotsDir(root, namespace, project string) (*os.Root, error) {
	if !dnsLabelish.MatchString(namespace) || !dnsLabelish.MatchString(project) {
		return nil, fmt.Errorf("snapshot of %s/%s: not a valid name", namespace, project)
	}
	d, err := OpenContentDir(root, SnapshotsRel(namespace, project), true)
	if err != nil {
		return nil, fmt.Errorf("opening the snapshot directory of %s/%s: %w", namespace, project, err)
	}
	return d, nil
}

// Export writes commit's snapshot as the directory name of dest: the tree
// as plain files (executables 0755, others 0644) and in-tree symbolic
// links, after CheckExportable(commit, arenaFile) passed. The files are
// written into a temporary sibling and renamed to name at the end, so name
// either does not exist or holds the whole snapshot; an existing name is
// left as it is and nil returned (a snapshot of a commit never changes).
// Every write goes through an os.Root of the temporary directory, opened
// from dest without following links, so no entry can land outside it. For
// the ArenaRun controller, dest is OpenSnapshotsDir and name the commit.
func (r *Repository) Export(commit, arenaFile string, dest *os.Root, name string) error {
	if err := r.CheckExportable(commit, arenaFile); err != nil {
		return err
	}
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return fmt.Errorf("export of %s: %q is not a directory name", commit, name)
	}
	if _, err := dest.Lstat(name); err == nil {
		return nil
	}
	c, err := r.commit(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return newError(v1alpha1.ArenaRunReasonSnapshotUnexportable, err, "commit %s: reading its tree", commit)
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	tmpName := "." + name + ".tmp-" + hex.EncodeToString(nonce[:])
	if err := dest.Mkdir(tmpName, 0o700); err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	defer func() { _ = dest.RemoveAll(tmpName) }()
	tmp, err := OpenDirNoLinks(dest, tmpName, false)
	if err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	defer func() { _ = tmp.Close() }()
	if err := writeTree(r, tmp, tree); err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	if err := tmp.Chmod(".", 0o755); err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	if err := dest.Rename(tmpName, name); err != nil {
		if _, statErr := dest.Lstat(name); statErr == nil {
			return nil // another writer finished first
		}
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	return nil
}

func writeTree(r *Repository, root *os.Root, tree *object.Tree) error {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch e.Mode {
		case filemode.Dir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case filemode.Symlink:
			target, err := r.blobPrefix(e.Hash, 4096)
			if err != nil {
				return err
			}
			if err := root.Symlink(string(target), name); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			perm := os.FileMode(0o644)
			if e.Mode == filemode.Executable {
				perm = 0o755
			}
			if err := writeBlob(r, root, name, e, perm); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: unsupported file mode %s", name, e.Mode)
		}
	}
}

func writeBlob(r *Repository, root *os.Root, name string, e object.TreeEntry, perm os.FileMode) error {
	if d := filepath.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	b, err := r.repo.BlobObject(e.Hash)
	if err != nil {
		return err
	}
	rd, err := b.Reader()
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(rd, b.Size)); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
