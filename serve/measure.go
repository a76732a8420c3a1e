package serve

import (
	"context"
	"fmt"
	"time"

	"github.com/lorehq/lore/measure"
)

// measure answers with lore measure --json's report over the team's
// store and the sessions it uploaded, without the replay (which
// harvests every session again, too slow for a request).
func (s *Server) measure(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "repo", "since")
	if err != nil {
		return nil, err
	}
	o := measure.Options{Repo: q.Get("repo"), Now: s.opts.Now()}
	if since := q.Get("since"); since != "" {
		if o.Since, err = time.Parse("2006-01-02", since); err != nil {
			return nil, invalidf("since=%q: want a day, YYYY-MM-DD", since)
		}
	}
	sessions, err := s.uploads.Sessions(ctx, c.token.Team)
	if err != nil {
		return nil, fmt.Errorf("uploaded sessions: %w", err)
	}
	return measure.Compute(ctx, sessions, c.store, o)
}
