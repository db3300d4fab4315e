// Command s3store is the S3-compatible object store of the real test node:
// gofakes3 serving its in-memory backend over plain HTTP. The real-CNPG
// tier runs it as a Pod inside the node, where the barman-cloud plugin's
// sidecars archive WAL and base backups into it. Memory is enough: the
// store lives as long as one test run's node.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func main() {
	addr := flag.String("listen", ":9000", "address to serve S3 on")
	buckets := flag.String("buckets", "backups", "comma-separated buckets to create at start")
	flag.Parse()
	if err := run(*addr, strings.Split(*buckets, ",")); err != nil {
		fmt.Fprintf(os.Stderr, "s3store: %v\n", err)
		os.Exit(1)
	}
}

func run(addr string, buckets []string) error {
	backend := s3mem.New()
	for _, b := range buckets {
		if b == "" {
			continue
		}
		if err := backend.CreateBucket(b); err != nil {
			return fmt.Errorf("create bucket %s: %w", b, err)
		}
	}
	// Buckets a client names are made on first use, as barman's tools
	// expect of a store they may set up themselves.
	faker := gofakes3.New(backend, gofakes3.WithAutoBucket(true), gofakes3.WithGlobalLog())
	srv := &http.Server{Addr: addr, Handler: faker.Server(), ReadHeaderTimeout: 30 * time.Second}
	log.Printf("s3store: serving %v on %s", buckets, addr)
	return srv.ListenAndServe()
}
