package serve

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lorehq/lore"
)

// latencyBuckets are the upper bounds, in seconds, of the request
// latency histograms.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// metrics counts requests, in Prometheus's text format, written by hand.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]int64 // route, status
	latency  map[string]*histogram
}

type histogram struct {
	counts []int64 // per bucket, not cumulative
	sum    float64
	n      int64
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]int64{}, latency: map[string]*histogram{}}
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{route, fmt.Sprint(status)}]++
	h := m.latency[route]
	if h == nil {
		h = &histogram{counts: make([]int64, len(latencyBuckets))}
		m.latency[route] = h
	}
	sec := d.Seconds()
	if i, _ := slices.BinarySearch(latencyBuckets, sec); i < len(latencyBuckets) {
		h.counts[i]++
	}
	h.sum += sec
	h.n++
}

// write writes the counters in Prometheus's text format, in a stable
// order.
func (m *metrics) write(b *strings.Builder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b.WriteString("# HELP lore_http_requests_total Requests answered, by route and status.\n# TYPE lore_http_requests_total counter\n")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) })
	for _, k := range keys {
		fmt.Fprintf(b, "lore_http_requests_total{route=%q,status=%q} %d\n", k[0], k[1], m.requests[k])
	}
	b.WriteString("# HELP lore_http_request_duration_seconds How long requests took, by route.\n# TYPE lore_http_request_duration_seconds histogram\n")
	routes := make([]string, 0, len(m.latency))
	for r := range m.latency {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	for _, r := range routes {
		h := m.latency[r]
		var cum int64
		for i, le := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(b, "lore_http_request_duration_seconds_bucket{route=%q,le=\"%g\"} %d\n", r, le, cum)
		}
		fmt.Fprintf(b, "lore_http_request_duration_seconds_bucket{route=%q,le=\"+Inf\"} %d\n", r, h.n)
		fmt.Fprintf(b, "lore_http_request_duration_seconds_sum{route=%q} %g\n", r, h.sum)
		fmt.Fprintf(b, "lore_http_request_duration_seconds_count{route=%q} %d\n", r, h.n)
	}
}

// serveMetrics answers GET /metrics. It names no team: the items are
// counted over every team that has a token (and the default team),
// for anyone who can reach the server.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	s.metrics.write(&b)
	items, err := s.countItems(r.Context())
	if err != nil {
		s.log.Warn("metrics: count items", "err", err)
	} else {
		b.WriteString("# HELP lore_items Items stored, by status, over every team.\n# TYPE lore_items gauge\n")
		for _, st := range lore.Statuses {
			fmt.Fprintf(&b, "lore_items{status=%q} %d\n", st, items[st])
		}
	}
	if queued, err := s.uploads.Queued(r.Context()); err != nil {
		s.log.Warn("metrics: count queued uploads", "err", err)
	} else {
		fmt.Fprintf(&b, "# HELP lore_uploads_queued Uploaded transcripts waiting for harvest or being harvested, of every team.\n# TYPE lore_uploads_queued gauge\nlore_uploads_queued %d\n", queued)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String()))
}

// countItems counts the items of every team that has a token, and of the
// default team, by status.
func (s *Server) countItems(ctx context.Context) (map[lore.Status]int, error) {
	toks, err := s.teams.ListTokens(ctx, "")
	if err != nil {
		return nil, err
	}
	teams := []string{lore.DefaultTeam}
	for _, t := range toks {
		if !slices.Contains(teams, t.Team) {
			teams = append(teams, t.Team)
		}
	}
	out := map[lore.Status]int{}
	for _, team := range teams {
		st, err := s.teams.Team(ctx, team)
		if err != nil {
			return nil, err
		}
		for _, status := range lore.Statuses {
			n, err := st.Count(ctx, lore.Filter{Statuses: []lore.Status{status}, Expired: true})
			if err != nil {
				return nil, err
			}
			out[status] += n
		}
	}
	return out, nil
}
