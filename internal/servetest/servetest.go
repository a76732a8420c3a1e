// Package servetest runs lore serve in-process over a real SQLite store
// in a temporary folder, for the tests of lore's clients of it.
package servetest

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/serve"
	"github.com/lorehq/lore/sqlite"
)

// Server is lore serve at URL, which can be stopped and started again at
// the same address.
type Server struct {
	URL   string
	Teams *sqlite.Teams
	// Dir is the server's folder: lore.db (the tokens and the uploads'
	// queue), the teams' stores.
	Dir string
	// Handler answers the API, for a test that serves it otherwise (TLS).
	Handler *serve.Server

	t    testing.TB
	addr string
	http *http.Server
}

// Start serves on a free port of loopback, reading the time from now
// (nil: time.Now), until the test ends.
func Start(t testing.TB, now func() time.Time) *Server {
	t.Helper()
	dir := t.TempDir()
	teams, err := sqlite.OpenTeams(context.Background(), filepath.Join(dir, "lore.db"), sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { teams.Close() })
	h, err := serve.New(teams, serve.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	worked := make(chan struct{})
	go func() { h.Work(ctx); close(worked) }()
	t.Cleanup(func() { cancel(); <-worked })
	s := &Server{Teams: teams, Dir: dir, Handler: h, t: t, addr: "127.0.0.1:0"}
	s.Restart()
	s.URL = "http://" + s.addr
	t.Cleanup(s.Stop)
	return s
}

// Token makes a token of team with scope, named after the team.
func (s *Server) Token(team string, scope lore.TokenScope) string {
	s.t.Helper()
	secret, hash := lore.NewToken()
	if _, err := s.Teams.AddToken(context.Background(), lore.Token{Team: team, Scope: scope, Name: team}, hash); err != nil {
		s.t.Fatal(err)
	}
	return secret
}

// Store is a team's store on the server.
func (s *Server) Store(team string) lore.Store {
	s.t.Helper()
	st, err := s.Teams.Team(context.Background(), team)
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// Drain waits until the server's workers have harvested every upload,
// for up to 30 seconds.
func (s *Server) Drain() {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := s.Teams.Queued(context.Background())
		if err != nil {
			s.t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d uploads still queued after 30 s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop closes the server and its connections: requests then get no answer.
func (s *Server) Stop() { s.http.Close() }

// Restart serves again at the server's address.
func (s *Server) Restart() {
	s.t.Helper()
	var l net.Listener
	var err error
	for range 50 { // the port of a server just stopped can take a moment
		if l, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	s.addr = l.Addr().String()
	s.http = &http.Server{Handler: s.Handler}
	go s.http.Serve(l)
}
