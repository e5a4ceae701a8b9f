package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	testredis "github.com/altairalabs/omnia/test/redis"
)

// startArenaQueue starts the local Arena work queue (redis-server under
// state/redis) and returns the operator flags that use it: --arena and
// --arena-queue-redis-url-file. It runs with --open-core too: the Arena
// controllers then run and the licence gates refuse what needs a licence.
func startArenaQueue(state string) ([]string, func(), error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, nil, fmt.Errorf("redis-server not found (make redis installs it): %w", err)
	}
	dir := filepath.Join(state, "redis")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	srv, err := testredis.StartIn(bin, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("starting the Arena queue's redis-server: %w", err)
	}
	urlFile := filepath.Join(dir, "url")
	if err := os.WriteFile(urlFile, []byte(srv.URL()), 0o600); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "arena queue: redis-server on %s (data under %s)\n", srv.Addr, dir)
	return []string{"--arena", "--arena-queue-redis-url-file", urlFile}, srv.Stop, nil
}
