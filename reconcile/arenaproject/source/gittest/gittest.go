// Package gittest builds git repositories for tests with go-git (no git
// binary) and serves them over git's smart HTTP protocol from a local
// server.
//
// Why smart HTTP, served by go-git's own server side
// (plumbing/transport/server): go-git's client speaks only the smart
// protocol (it has no dumb-HTTP client), so a dumb server would test
// nothing the operator does. The handler here is the two smart-HTTP
// endpoints (GET info/refs?service=git-upload-pack, POST git-upload-pack)
// around go-git's upload-pack session, plus the symref capability, so the
// client learns HEAD's branch as it does from a real git server.
package gittest

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

// File is one tree entry of a commit: its content and mode (0: regular).
type File struct {
	Content string
	Mode    filemode.FileMode
	// Hash is a submodule's commit (Mode filemode.Submodule).
	Hash plumbing.Hash
}

var when = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Commit writes a commit with files (path → File) and parents, and returns
// its hash. Branches and tags are set with Branch and Tag.
func Commit(t testing.TB, repo *git.Repository, msg string, files map[string]File, parents ...plumbing.Hash) plumbing.Hash {
	t.Helper()
	root := writeTree(t, repo.Storer, "", files)
	sig := object.Signature{Name: "Test", Email: "test@example.invalid", When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: root, ParentHashes: parents}
	return store(t, repo.Storer, c)
}

type encoder interface {
	Encode(plumbing.EncodedObject) error
}

func store(t testing.TB, s storer.EncodedObjectStorer, o encoder) plumbing.Hash {
	t.Helper()
	obj := s.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// writeTree writes the tree of the files under dir ("" the root).
func writeTree(t testing.TB, s storer.EncodedObjectStorer, dir string, files map[string]File) plumbing.Hash {
	t.Helper()
	subdirs := map[string]bool{}
	var entries []object.TreeEntry
	for p, f := range files {
		rel := p
		if dir != "" {
			if !strings.HasPrefix(p, dir+"/") {
				continue
			}
			rel = strings.TrimPrefix(p, dir+"/")
		}
		if i := strings.Index(rel, "/"); i >= 0 {
			subdirs[rel[:i]] = true
			continue
		}
		mode := f.Mode
		if mode == 0 {
			mode = filemode.Regular
		}
		h := f.Hash
		if mode != filemode.Submodule {
			blob := s.NewEncodedObject()
			blob.SetType(plumbing.BlobObject)
			w, err := blob.Writer()
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write([]byte(f.Content))
			_ = w.Close()
			if h, err = s.SetEncodedObject(blob); err != nil {
				t.Fatal(err)
			}
		}
		entries = append(entries, object.TreeEntry{Name: rel, Mode: mode, Hash: h})
	}
	for d := range subdirs {
		entries = append(entries, object.TreeEntry{Name: d, Mode: filemode.Dir, Hash: writeTree(t, s, path.Join(dir, d), files)})
	}
	// git's tree order: by name, a directory compared as name + "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	return store(t, s, &object.Tree{Entries: entries})
}

// Branch points refs/heads/name at h.
func Branch(t testing.TB, repo *git.Repository, name string, h plumbing.Hash) {
	t.Helper()
	if err := repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(name), h)); err != nil {
		t.Fatal(err)
	}
}

// Head makes HEAD name branch.
func Head(t testing.TB, repo *git.Repository, branch string) {
	t.Helper()
	if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(branch))); err != nil {
		t.Fatal(err)
	}
}

// Tag makes tag name at h: annotated (a tag object) when annotated.
func Tag(t testing.TB, repo *git.Repository, name string, h plumbing.Hash, annotated bool) {
	t.Helper()
	var opts *git.CreateTagOptions
	if annotated {
		opts = &git.CreateTagOptions{Tagger: &object.Signature{Name: "Test", Email: "test@example.invalid", When: when}, Message: "release " + name}
	}
	if _, err := repo.CreateTag(name, h, opts); err != nil {
		t.Fatal(err)
	}
}

// Server serves one repository over smart HTTP at URL (…/repo.git).
type Server struct {
	*httptest.Server
	// URL of the repository.
	URL string
	// Requests counts the requests served.
	Requests atomic.Int32

	mu             sync.Mutex
	authorizations []string
}

// Authorizations are the Authorization headers of the requests served, in
// order (requests without one are not listed): what a client sent the
// server, whether or not the server asked for it.
func (s *Server) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.authorizations)
}

// Options configure Serve and ServePack.
type Options struct {
	// Username and Password, when set, are required (HTTP basic auth).
	Username, Password string
	// TLS serves https with the certificate of Trust (for 127.0.0.1, ::1
	// and localhost), instead of http.
	TLS bool
	// Listener, when set, is the listener to serve on (closed with the
	// server), so a test can know the server's host:port before it
	// starts; nil: a new one on 127.0.0.1.
	Listener net.Listener
	// Arrived, when set, is sent to (without blocking) as each request
	// arrives, before Hold.
	Arrived chan<- struct{}
	// Hold, when set, makes every request wait until it is closed (or its
	// client goes away): a server that stalls. Close it before the server
	// closes (a t.Cleanup registered after Serve runs first).
	Hold <-chan struct{}
}

// enter counts a request, records its Authorization header, announces
// it, holds it and checks its credentials; false when it was answered (refused).
func (s *Server) enter(opts Options, w http.ResponseWriter, r *http.Request) bool {
	s.Requests.Add(1)
	if h := r.Header.Get("Authorization"); h != "" {
		s.mu.Lock()
		s.authorizations = append(s.authorizations, h)
		s.mu.Unlock()
	}
	if opts.Arrived != nil {
		select {
		case opts.Arrived <- struct{}{}:
		default:
		}
	}
	if opts.Hold != nil {
		select {
		case <-opts.Hold:
		case <-r.Context().Done():
			return false
		}
	}
	if opts.Password == "" {
		return true
	}
	u, p, ok := r.BasicAuth()
	if !ok || u != opts.Username || p != opts.Password {
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
		return false
	}
	return true
}

type oneRepo struct{ s storer.Storer }

func (l oneRepo) Load(*transport.Endpoint) (storer.Storer, error) { return l.s, nil }

// Serve starts a local smart-HTTP server for repo (closed with the test).
func Serve(t testing.TB, repo *git.Repository, opts Options) *Server {
	t.Helper()
	srv := server.NewServer(oneRepo{repo.Storer})
	ep, err := transport.NewEndpoint("/repo.git")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{}
	mux := http.NewServeMux()
	auth := func(w http.ResponseWriter, r *http.Request) bool { return s.enter(opts, w, r) }
	mux.HandleFunc("GET /repo.git/info/refs", func(w http.ResponseWriter, r *http.Request) {
		if !auth(w, r) {
			return
		}
		if r.URL.Query().Get("service") != transport.UploadPackServiceName {
			http.Error(w, "only upload-pack", http.StatusForbidden)
			return
		}
		sess, err := srv.NewUploadPackSession(ep, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ar, err := sess.AdvertisedReferencesContext(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if head, err := repo.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference {
			_ = ar.Capabilities.Add(capability.SymRef, "HEAD:"+head.Target().String())
		}
		ar.Prefix = [][]byte{[]byte("# service=" + transport.UploadPackServiceName), pktline.Flush}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_ = ar.Encode(w)
	})
	mux.HandleFunc("POST /repo.git/git-upload-pack", func(w http.ResponseWriter, r *http.Request) {
		if !auth(w, r) {
			return
		}
		req := packp.NewUploadPackRequest()
		if err := req.Decode(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sess, err := srv.NewUploadPackSession(ep, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		resp, err := sess.UploadPack(context.Background(), req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		_ = resp.Encode(w)
	})
	s.start(t, mux, opts)
	return s
}

// start serves mux on opts.Listener (or a new one), over https with the
// test certificate when opts.TLS; the server closes with the test.
func (s *Server) start(t testing.TB, mux *http.ServeMux, opts Options) {
	s.Server = httptest.NewUnstartedServer(mux)
	if opts.Listener != nil {
		_ = s.Server.Listener.Close()
		s.Server.Listener = opts.Listener
	}
	if opts.TLS {
		s.Server.TLS = &tls.Config{Certificates: []tls.Certificate{serverCert(t)}}
		s.Server.StartTLS()
	} else {
		s.Server.Start()
	}
	s.URL = s.Server.URL + "/repo.git"
	t.Cleanup(s.Close)
}

// ServePack starts a local smart-HTTP server (closed with the test) whose
// repository advertises refs (HEAD naming head) and answers every fetch
// with pack as it is, whatever the client wants: a server that sends what
// a test built with Pack.
func ServePack(t testing.TB, pack []byte, refs map[plumbing.ReferenceName]plumbing.Hash, head plumbing.ReferenceName, opts Options) *Server {
	t.Helper()
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repo.git/info/refs", func(w http.ResponseWriter, r *http.Request) {
		if !s.enter(opts, w, r) {
			return
		}
		ar := packp.NewAdvRefs()
		for name, h := range refs {
			ar.References[name.String()] = h
		}
		if h, ok := refs[head]; ok {
			ar.Head = &h
			_ = ar.Capabilities.Add(capability.SymRef, "HEAD:"+head.String())
		}
		_ = ar.Capabilities.Add(capability.OFSDelta)
		ar.Prefix = [][]byte{[]byte("# service=" + transport.UploadPackServiceName), pktline.Flush}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_ = ar.Encode(w)
	})
	mux.HandleFunc("POST /repo.git/git-upload-pack", func(w http.ResponseWriter, r *http.Request) {
		if !s.enter(opts, w, r) {
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		_, _ = w.Write([]byte("0008NAK\n"))
		_, _ = w.Write(pack)
	})
	s.start(t, mux, opts)
	return s
}
