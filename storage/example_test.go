package storage_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/zarr-dt64/dt64/storage"
)

// loggingStore is a user's wrapper: it logs every Get and, by
// implementing Unwrap, keeps every capability of the store inside.
type loggingStore struct{ storage.Store }

func (s loggingStore) Get(ctx context.Context, key string) ([]byte, error) {
	fmt.Println("get", key)
	return s.Store.Get(ctx, key)
}

func (s loggingStore) Unwrap() storage.Store { return s.Store }

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "dt64-storage")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	d := storage.NewDir(dir)
	defer d.Close()
	if err := d.Set(ctx, "group/a/c/0", []byte("0123456789")); err != nil {
		log.Fatal(err)
	}
	if err := d.Sync(ctx); err != nil { // durable: files and directories fsynced
		log.Fatal(err)
	}

	s := loggingStore{d}
	v, err := s.Get(ctx, "group/a/c/0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", v)

	// The wrapper keeps the directory's range reads.
	if rg, ok := storage.Find[storage.RangeGetter](s); ok {
		part, err := rg.GetRange(ctx, "group/a/c/0", 2, 3)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("range %s\n", part)
	}

	// A node's view: keys relative to it, nothing outside reachable.
	a, err := storage.Sub(d, "group/a")
	if err != nil {
		log.Fatal(err)
	}
	keys, err := a.List(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(keys)
	// Output:
	// get group/a/c/0
	// 0123456789
	// range 234
	// [c/0]
}
