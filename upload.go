package lore

import (
	"context"
	"time"
)

// The states of an uploaded transcript in an UploadQueue.
const (
	UploadQueued    = "queued"    // waiting for a worker
	UploadRunning   = "running"   // a worker holds it until its lease passes
	UploadHarvested = "harvested" // done
	UploadFailed    = "failed"    // done, with an error
)

// QueuedUpload is a transcript a team sent a server, redacted, kept
// with its body until a worker harvests it: any server on the same
// database can, so a fleet of servers shares the work.
type QueuedUpload struct {
	// ID names the upload within its team: a hash of its body, so the
	// same transcript sent twice is one upload.
	ID         string    `json:"id"`
	Team       string    `json:"team"`
	Name       string    `json:"name"`           // its file name, by which its format is told
	Repo       string    `json:"repo,omitempty"` // owner/name, as the sender says
	Bytes      int       `json:"bytes"`
	Received   time.Time `json:"received"`
	Redactions int       `json:"redactions"` // secrets the server removed on arrival
	Sessions   int       `json:"sessions"`
	State      string    `json:"state"`
	// Worker holds a running upload until Lease; a worker that dies
	// leaves it to another once the lease has passed.
	Worker   string    `json:"worker,omitempty"`
	Lease    time.Time `json:"lease,omitzero"`
	Attempts int       `json:"attempts"`
	// Result is the harvest's summary as JSON, once done; Error says
	// why it failed.
	Result []byte `json:"-"`
	Error  string `json:"error,omitempty"`
	// Body is the redacted transcript; lists leave it out.
	Body []byte `json:"-"`
}

// MaxAttempts is how many workers may claim an upload before one whose
// lease passed is given up as failed.
const MaxAttempts = 3

// UploadQueue keeps uploaded transcripts until a worker harvests them.
// A lore.Teams may implement it, so that every server on its database
// takes uploads and harvests them.
type UploadQueue interface {
	// Enqueue keeps u (Team, ID, Name and Body set) as queued, and
	// returns it as stored. An upload of the same team and ID stored
	// already is returned as it stands: nothing is harvested twice.
	Enqueue(ctx context.Context, u QueuedUpload) (QueuedUpload, error)
	// Claim hands worker the oldest queued upload, or a running one
	// whose lease passed before now, marked running by worker until
	// now+lease, with its body; false when there is none. Two workers
	// never hold the same upload. One whose lease passed MaxAttempts
	// times (it kills its workers) is marked failed instead.
	Claim(ctx context.Context, worker string, now time.Time, lease time.Duration) (QueuedUpload, bool, error)
	// Finish records the end of u's harvest: u.State (harvested or
	// failed), Sessions, Result and Error, for the upload of u.Team and
	// u.ID that u.Worker holds. It is ECONFLICT when that worker no
	// longer holds it (its lease passed and another claimed it).
	Finish(ctx context.Context, u QueuedUpload) error
	// Uploads lists a team's latest uploads, newest first, at most
	// limit, without their bodies.
	Uploads(ctx context.Context, team string, limit int) ([]QueuedUpload, error)
	// UploadBodies calls fn with each of a team's uploads, its body
	// included, oldest first.
	UploadBodies(ctx context.Context, team string, fn func(QueuedUpload) error) error
	// Queued counts the uploads of every team that are queued or
	// running.
	Queued(ctx context.Context) (int, error)
}

// Queueable returns u as a queue keeps it: queued, Bytes its body's
// length, Received in a store's precision (now when zero). An upload of
// a team that is not ValidTeam, or without an ID or a body, is EINVALID.
func (u QueuedUpload) Queueable(now time.Time) (QueuedUpload, error) {
	if !ValidTeam(u.Team) {
		return u, Errorf(EINVALID, "team %q: want 1 to 40 lower-case letters, digits, '-' and '_'", u.Team)
	}
	if u.ID == "" || len(u.Body) == 0 {
		return u, Errorf(EINVALID, "an upload needs an id and a body")
	}
	if u.Received.IsZero() {
		u.Received = now
	}
	u.Received, u.Bytes, u.State = StoreTime(u.Received), len(u.Body), UploadQueued
	return u, nil
}

// CheckFinished is EINVALID unless u ends as harvested or failed.
func (u QueuedUpload) CheckFinished() error {
	if u.State != UploadHarvested && u.State != UploadFailed {
		return Errorf(EINVALID, "an upload finishes %s or %s, not %q", UploadHarvested, UploadFailed, u.State)
	}
	return nil
}
