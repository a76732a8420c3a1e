package archive

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkPutVerify archives batches of 100 Hermes-shaped sessions
// (about 4 MB of rows) with a trained dictionary and reads them back, as
// prune does before it deletes anything; MB/s are of raw rows. The whole
// prune of a 420 MB database needs this well above 20 MB/s.
func BenchmarkPutVerify(b *testing.B) {
	ctx := context.Background()
	sessions := newGen(1).sessions(100)
	d := dictionaryFor(b, sessions)
	b.SetBytes(rawSize(sessions))
	for _, step := range []string{"put+verify", "put", "verify"} {
		b.Run(step, func(b *testing.B) {
			b.SetBytes(rawSize(sessions))
			for b.Loop() {
				b.StopTimer()
				a, err := Create(ctx, filepath.Join(b.TempDir(), "a.db"))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.AddDictionary(ctx, d); err != nil {
					b.Fatal(err)
				}
				if step != "verify" {
					b.StartTimer()
				}
				if err := a.Put(ctx, sessions); err != nil {
					b.Fatal(err)
				}
				if step == "verify" {
					b.StartTimer()
				}
				if step != "put" {
					if err := a.Verify(ctx, sessions); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				a.Close()
				b.StartTimer()
			}
		})
	}
}

func BenchmarkTrainDictionary(b *testing.B) {
	sessions := newGen(1).sessions(300)
	var samples [][]byte
	items := itemsOf(sessions)
	for _, i := range pick(items, func(i int) int { return rowOf(sessions, &items[i]).size() }) {
		r, _ := rowOf(sessions, &items[i]).MarshalBinary()
		samples = append(samples, r)
	}
	var n int64
	for _, s := range samples {
		n += int64(min(len(s), sampleSize))
	}
	b.SetBytes(n)
	for b.Loop() {
		if _, err := TrainDictionary(samples); err != nil {
			b.Fatal(err)
		}
	}
}

func dictionaryFor(b *testing.B, sessions []Session) []byte {
	a, err := Create(context.Background(), filepath.Join(b.TempDir(), "train.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	if err := a.Train(context.Background(), sessions); err != nil {
		b.Fatal(err)
	}
	var d []byte
	if err := a.db.QueryRow("SELECT bytes FROM dictionaries").Scan(&d); err != nil {
		b.Fatal(err)
	}
	return d
}

func itemsOf(sessions []Session) []item {
	var items []item
	for i, s := range sessions {
		items = append(items, item{session: i, seq: -1})
		for j := range s.Messages {
			items = append(items, item{session: i, seq: j})
		}
	}
	return items
}
