package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// RunUploadQueue is the conformance suite of lore.UploadQueue: the same
// upload enqueued twice is one; workers claiming at once never hold the
// same upload; a lease that passed hands the upload to another worker,
// and the one that lost it cannot finish it. open returns an empty
// queue.
func RunUploadQueue(t *testing.T, open func(t *testing.T) lore.UploadQueue) {
	ctx := context.Background()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	enqueue := func(t *testing.T, q lore.UploadQueue, team, id string, received time.Time) lore.QueuedUpload {
		t.Helper()
		u, err := q.Enqueue(ctx, lore.QueuedUpload{Team: team, ID: id, Name: id + ".jsonl", Repo: "acme/api", Received: received, Redactions: 1, Sessions: 1, Body: []byte("body of " + id)})
		if err != nil {
			t.Fatalf("Enqueue: %v", err)
		}
		return u
	}
	queued := func(t *testing.T, q lore.UploadQueue, want int) {
		t.Helper()
		if n, err := q.Queued(ctx); err != nil || n != want {
			t.Errorf("Queued = %d, %v; want %d", n, err, want)
		}
	}

	t.Run("EnqueueTwiceIsOne", func(t *testing.T) {
		q := open(t)
		u := enqueue(t, q, "acme", "a1", at)
		if u.State != lore.UploadQueued || u.Bytes != len("body of a1") || !u.Received.Equal(at) || u.Repo != "acme/api" || u.Sessions != 1 {
			t.Errorf("enqueued %+v", u)
		}
		again := enqueue(t, q, "acme", "a1", at.Add(time.Hour))
		if !again.Received.Equal(at) {
			t.Errorf("enqueued again: received %v, want the first %v", again.Received, at)
		}
		enqueue(t, q, "other", "a1", at) // another team's upload of the same body is its own
		queued(t, q, 2)
		list, err := q.Uploads(ctx, "acme", 10)
		if err != nil || len(list) != 1 || list[0].Body != nil {
			t.Errorf("Uploads(acme) = %+v, %v; want one, without its body", list, err)
		}
		if _, err := q.Enqueue(ctx, lore.QueuedUpload{Team: "Not A Team", ID: "x", Body: []byte("x")}); lore.ErrorCode(err) != lore.EINVALID {
			t.Errorf("Enqueue of a bad team: %v, want EINVALID", err)
		}
	})

	t.Run("ClaimOldestFirstAndFinish", func(t *testing.T) {
		q := open(t)
		enqueue(t, q, "acme", "late", at.Add(time.Minute))
		enqueue(t, q, "beta", "early", at)
		u, ok, err := q.Claim(ctx, "w1", at, time.Minute)
		if err != nil || !ok || u.ID != "early" || u.Team != "beta" || u.State != lore.UploadRunning || u.Worker != "w1" || string(u.Body) != "body of early" || u.Attempts != 1 {
			t.Fatalf("Claim = %+v, %v, %v; want beta's early, running, with its body", u, ok, err)
		}
		if !u.Lease.Equal(at.Add(time.Minute)) {
			t.Errorf("lease %v, want %v", u.Lease, at.Add(time.Minute))
		}
		queued(t, q, 2)
		u.State, u.Sessions, u.Result = lore.UploadHarvested, 3, []byte(`{"items_new":2}`)
		if err := q.Finish(ctx, u); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		queued(t, q, 1)
		if err := q.Finish(ctx, u); lore.ErrorCode(err) != lore.ECONFLICT {
			t.Errorf("Finish of a finished upload: %v, want ECONFLICT", err)
		}
		list, err := q.Uploads(ctx, "beta", 10)
		if err != nil || len(list) != 1 || list[0].State != lore.UploadHarvested || list[0].Sessions != 3 || string(list[0].Result) != `{"items_new":2}` {
			t.Errorf("Uploads(beta) = %+v, %v", list, err)
		}
		v, ok, err := q.Claim(ctx, "w2", at, time.Minute)
		if err != nil || !ok || v.ID != "late" {
			t.Fatalf("second Claim = %+v, %v, %v; want late", v, ok, err)
		}
		v.State, v.Error = lore.UploadFailed, "no session in it"
		if err := q.Finish(ctx, v); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := q.Claim(ctx, "w1", at.Add(time.Hour), time.Minute); ok || err != nil {
			t.Errorf("Claim of an empty queue: %v, %v", ok, err)
		}
		queued(t, q, 0)
		var bodies []string
		err = q.UploadBodies(ctx, "acme", func(u lore.QueuedUpload) error {
			bodies = append(bodies, u.State+" "+string(u.Body)+" "+u.Error)
			return nil
		})
		if err != nil || len(bodies) != 1 || bodies[0] != "failed body of late no session in it" {
			t.Errorf("UploadBodies(acme) = %q, %v", bodies, err)
		}
	})

	t.Run("LeaseExpiry", func(t *testing.T) {
		q := open(t)
		enqueue(t, q, "acme", "a1", at)
		u, ok, err := q.Claim(ctx, "dead", at, time.Minute)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if _, ok, _ := q.Claim(ctx, "w2", at.Add(59*time.Second), time.Minute); ok {
			t.Fatal("claimed an upload whose lease holds")
		}
		v, ok, err := q.Claim(ctx, "w2", at.Add(61*time.Second), time.Minute)
		if err != nil || !ok || v.ID != u.ID || v.Worker != "w2" || v.Attempts != 2 {
			t.Fatalf("Claim past the lease = %+v, %v, %v; want the dead worker's upload", v, ok, err)
		}
		u.State = lore.UploadHarvested
		if err := q.Finish(ctx, u); lore.ErrorCode(err) != lore.ECONFLICT {
			t.Errorf("Finish by the worker that lost the lease: %v, want ECONFLICT", err)
		}
		v.State = lore.UploadHarvested
		if err := q.Finish(ctx, v); err != nil {
			t.Errorf("Finish by the worker that holds it: %v", err)
		}
		queued(t, q, 0)
	})

	t.Run("GivenUpAfterMaxAttempts", func(t *testing.T) {
		q := open(t)
		enqueue(t, q, "acme", "poison", at)
		now := at
		for i := range lore.MaxAttempts {
			u, ok, err := q.Claim(ctx, fmt.Sprintf("w%d", i), now, time.Minute)
			if err != nil || !ok || u.Attempts != i+1 {
				t.Fatalf("claim %d: %+v %v %v", i+1, u, ok, err)
			}
			now = now.Add(2 * time.Minute) // the worker died
		}
		if u, ok, err := q.Claim(ctx, "last", now, time.Minute); ok || err != nil {
			t.Fatalf("claimed after %d dead workers: %+v %v", lore.MaxAttempts, u, err)
		}
		list, err := q.Uploads(ctx, "acme", 1)
		if err != nil || len(list) != 1 || list[0].State != lore.UploadFailed || list[0].Error == "" {
			t.Errorf("the upload: %+v %v, want failed with its error", list, err)
		}
		queued(t, q, 0)
	})

	t.Run("ConcurrentClaims", func(t *testing.T) {
		q := open(t)
		const jobs, workers = 40, 8
		for i := range jobs {
			enqueue(t, q, "acme", fmt.Sprintf("j%02d", i), at.Add(time.Duration(i)*time.Millisecond))
		}
		var mu sync.Mutex
		held := map[string]string{}
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("w%d", w)
				for {
					u, ok, err := q.Claim(ctx, name, at, time.Hour)
					if err != nil || !ok {
						errs <- err
						return
					}
					mu.Lock()
					if other, dup := held[u.ID]; dup {
						errs <- fmt.Errorf("%s claimed by %s and %s", u.ID, other, name)
					}
					held[u.ID] = name
					mu.Unlock()
					u.State = lore.UploadHarvested
					if err := q.Finish(ctx, u); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if len(held) != jobs {
			t.Errorf("%d uploads claimed, want %d", len(held), jobs)
		}
		queued(t, q, 0)
	})
}
