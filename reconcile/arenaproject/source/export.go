package source

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Export writes commit's snapshot into dir: the tree as plain files
// (executables 0755, others 0644) and in-tree symbolic links, after
// CheckExportable(commit, arenaFile) passed. The files are written into a
// temporary sibling of dir and renamed to dir at the end, so dir either
// does not exist or holds the whole snapshot; an existing dir is left as it
// is and nil returned (a snapshot of a commit never changes). Every write
// goes through an os.Root of the temporary directory, so no entry can land
// outside it. For the ArenaRun controller, into
// <content subtree>/ContentPath(project, commit).
func (r *Repository) Export(commit, arenaFile, dir string) error {
	if err := r.CheckExportable(commit, arenaFile); err != nil {
		return err
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil
	}
	c, err := r.commit(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return newError(ReasonSnapshotUnexportable, err, "commit %s: reading its tree", commit)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	defer func() { _ = root.Close() }()
	if err := writeTree(r, root, tree); err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("export of %s: %w", commit, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Lstat(dir); statErr == nil {
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
