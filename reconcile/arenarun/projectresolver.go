package arenarun

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
)

// MaxArenaFileBytes bounds the arena file the resolver reads (256 KiB): an
// arena file only lists other files.
const MaxArenaFileBytes = 256 << 10

// arenaConfigKind is the kind of a PromptKit arena config file.
const arenaConfigKind = "Arena"

// ProjectResolver is the operator's SourceResolver: it resolves a run's ref
// on its ArenaProject with the ArenaProject controller's go-git source
// package (source.Opener.Snapshot: the commit, checked exportable), reads
// the arena file at that commit (bounded, MaxArenaFileBytes), parses the
// scenarios and providers it lists (ParseArenaConfig), and, when the
// operator has a workspace content volume, exports the commit's snapshot to
// <content root>/<namespace>/<status.source.contentPath> for the workers.
//
// The operator's resolver has a source.Fetcher (arenasetup): the fetch and
// the export are a fetcher job, never the reconcile's own work. A question
// whose answer is not there yet is ErrSourcePending at once (the job
// queued); the fetcher announces the project on Events when it is done.
//
// Errors: ErrRefNotFound (the ref names nothing), ErrSnapshotUnexportable
// (the commit cannot be exported, or its arena file is missing, too large or
// not a valid arena config), ErrSourcePending (being fetched); anything else
// (the repository cannot be read now, the export failed to write) is
// transient and retried.
type ProjectResolver struct {
	Opener *source.Opener
}

// NewProjectResolver returns the resolver over cfg; secrets reads external
// projects' spec.git.secretRef (the manager's uncached APIReader). fetcher
// runs its fetches (nil: Resolve does them itself, a test's choice).
func NewProjectResolver(cfg source.Config, secrets client.Reader, fetcher *source.Fetcher) *ProjectResolver {
	o := source.NewOpener(cfg, secrets)
	o.Fetcher = fetcher
	return &ProjectResolver{Opener: o}
}

// Events is where the resolver's fetcher announces a project whose
// answer is ready (nil without a fetcher), for the ArenaRun controller's
// watch (Options.SourceEvents).
func (r *ProjectResolver) Events() <-chan event.GenericEvent {
	if r.Opener.Fetcher == nil {
		return nil
	}
	return r.Opener.Fetcher.Events(source.KindArenaRun)
}

// Resolve implements SourceResolver.
func (r *ProjectResolver) Resolve(ctx context.Context, project *v1alpha1.ArenaProject, ref, arenaFile string) (Resolved, error) {
	if arenaFile == "" {
		arenaFile = source.DefaultArenaFile
	}
	dir := path.Dir(path.Clean(arenaFile))
	snap, err := r.Opener.Snapshot(ctx, project, ref, arenaFile, source.SnapshotOptions{
		MaxArenaFileBytes: MaxArenaFileBytes,
		// An arena file that is no valid config exports nothing.
		Check: func(data []byte) error { _, err := ParseArenaConfig(data, dir); return err },
	})
	if source.IsFetching(err) {
		return Resolved{}, fmt.Errorf("%w: %v", ErrSourcePending, err)
	}
	if err != nil {
		return Resolved{}, mapSourceError(err)
	}
	cfg, err := ParseArenaConfig(snap.ArenaFile, dir)
	if err != nil {
		return Resolved{}, fmt.Errorf("%w: arena file %s at commit %s: %v", ErrSnapshotUnexportable, arenaFile, shortSHA(snap.Pin.Commit), err)
	}
	pin := snap.Pin
	return Resolved{
		Source: v1alpha1.ArenaRunSource{
			Repository:  pin.Repository,
			Ref:         pin.Ref,
			Commit:      pin.Commit,
			ContentPath: pin.ContentPath,
		},
		Scenarios: cfg.Scenarios,
		Providers: cfg.Providers,
	}, nil
}

// mapSourceError maps the source package's run-failing reasons to this
// package's errors (wrapping the original message); others stay transient.
func mapSourceError(err error) error {
	switch {
	case source.IsRefNotFound(err):
		return fmt.Errorf("%w: %v", ErrRefNotFound, err)
	case source.IsSnapshotUnexportable(err):
		return fmt.Errorf("%w: %v", ErrSnapshotUnexportable, err)
	}
	return err
}

func shortSHA(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// ArenaConfig is what the operator reads of a PromptKit arena config file
// (docs/arena.md § The arena file): the scenario files and provider IDs that
// make the run's work matrix.
type ArenaConfig struct {
	// Scenarios are the scenario files, as paths relative to the repository
	// root (the names the template's include/exclude globs match).
	Scenarios []string
	// Providers are the provider IDs: an entry's id, or its file's base
	// name without extension.
	Providers []string
}

// arenaFileRef is one entry of spec.scenarios or spec.providers. PromptKit
// names the path `file` (its config reference) and, in some examples,
// `path`; both are read.
type arenaFileRef struct {
	ID   string `json:"id,omitempty"`
	File string `json:"file,omitempty"`
	Path string `json:"path,omitempty"`
}

type arenaConfigFile struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Spec       *struct {
		Scenarios []arenaFileRef `json:"scenarios,omitempty"`
		Providers []arenaFileRef `json:"providers,omitempty"`
	} `json:"spec,omitempty"`
}

// Errors of ParseArenaConfig; the resolver wraps each in
// ErrSnapshotUnexportable.
var (
	errArenaNotYAML     = errors.New("not valid YAML")
	errArenaKind        = errors.New("kind is not " + arenaConfigKind)
	errArenaNoSpec      = errors.New("has no spec")
	errArenaNoScenarios = errors.New("spec.scenarios lists no scenario")
	errArenaEntry       = errors.New("an entry sets no file")
	errArenaEntryPath   = errors.New("an entry's file leaves the repository")
	errArenaDuplicate   = errors.New("an entry is listed twice")
)

// ParseArenaConfig reads the scenarios and providers of an arena config
// file whose directory in the repository is dir ("." the root). Scenario
// and provider files are relative to the arena file, as PromptKit resolves
// them; they are returned relative to the repository root. Refused: a file
// that is not YAML, a kind other than Arena, no spec, no scenario, an entry
// with no file, a file leaving the repository, a scenario or provider ID
// listed twice. Unknown fields are ignored (the workers read the rest).
func ParseArenaConfig(data []byte, dir string) (ArenaConfig, error) {
	var f arenaConfigFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return ArenaConfig{}, fmt.Errorf("%w: %v", errArenaNotYAML, err)
	}
	if f.Kind != "" && f.Kind != arenaConfigKind {
		return ArenaConfig{}, fmt.Errorf("%w (%q)", errArenaKind, f.Kind)
	}
	if f.Spec == nil {
		return ArenaConfig{}, errArenaNoSpec
	}
	if len(f.Spec.Scenarios) == 0 {
		return ArenaConfig{}, errArenaNoScenarios
	}
	var out ArenaConfig
	seen := map[string]bool{}
	for i, s := range f.Spec.Scenarios {
		p, err := entryPath(dir, s)
		if err != nil {
			return ArenaConfig{}, fmt.Errorf("spec.scenarios[%d]: %w", i, err)
		}
		if seen[p] {
			return ArenaConfig{}, fmt.Errorf("spec.scenarios[%d]: %w (%s)", i, errArenaDuplicate, p)
		}
		seen[p] = true
		out.Scenarios = append(out.Scenarios, p)
	}
	ids := map[string]bool{}
	for i, p := range f.Spec.Providers {
		id := strings.TrimSpace(p.ID)
		if id == "" {
			fp, err := entryPath(dir, p)
			if err != nil {
				return ArenaConfig{}, fmt.Errorf("spec.providers[%d]: %w", i, err)
			}
			base := path.Base(fp)
			id = strings.TrimSuffix(base, path.Ext(base))
		}
		if ids[id] {
			return ArenaConfig{}, fmt.Errorf("spec.providers[%d]: %w (%s)", i, errArenaDuplicate, id)
		}
		ids[id] = true
		out.Providers = append(out.Providers, id)
	}
	return out, nil
}

// entryPath is an entry's file relative to the repository root.
func entryPath(dir string, e arenaFileRef) (string, error) {
	f := strings.TrimSpace(e.File)
	if f == "" {
		f = strings.TrimSpace(e.Path)
	}
	if f == "" {
		return "", errArenaEntry
	}
	if strings.HasPrefix(f, "/") || strings.Contains(f, "\\") {
		return "", fmt.Errorf("%w (%s)", errArenaEntryPath, f)
	}
	if dir == "" {
		dir = "."
	}
	p := path.Clean(path.Join(dir, f))
	if p == ".." || strings.HasPrefix(p, "../") || p == "." {
		return "", fmt.Errorf("%w (%s)", errArenaEntryPath, f)
	}
	return p, nil
}
