// Command s3store is the S3-compatible object store of the real test node:
// gofakes3 serving its in-memory backend over plain HTTP and, given a
// certificate, over HTTPS too (the same buckets on both). The real-CNPG
// tier runs it as a Pod inside the node, where the barman-cloud plugin's
// sidecars archive WAL and base backups into it; the HTTPS port, with a
// certificate from a private CA, is the store an ObjectStore's endpointCA
// is tested against. Memory is enough: the store lives as long as one
// test run's node.
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

type options struct {
	addr, tlsAddr, tlsCert, tlsKey string
	buckets                        []string
}

func main() {
	var o options
	flag.StringVar(&o.addr, "listen", ":9000", "address to serve S3 on over plain HTTP")
	flag.StringVar(&o.tlsAddr, "tls-listen", "", "address to serve S3 on over HTTPS as well (needs -tls-cert and -tls-key)")
	flag.StringVar(&o.tlsCert, "tls-cert", "", "PEM certificate chain for -tls-listen")
	flag.StringVar(&o.tlsKey, "tls-key", "", "PEM private key for -tls-listen")
	buckets := flag.String("buckets", "backups", "comma-separated buckets to create at start")
	flag.Parse()
	o.buckets = strings.Split(*buckets, ",")
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "s3store: %v\n", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if (o.tlsAddr != "") != (o.tlsCert != "" && o.tlsKey != "") {
		return fmt.Errorf("-tls-listen needs -tls-cert and -tls-key, and they need it")
	}
	backend := s3mem.New()
	for _, b := range o.buckets {
		if b == "" {
			continue
		}
		if err := backend.CreateBucket(b); err != nil {
			return fmt.Errorf("create bucket %s: %w", b, err)
		}
	}
	// Buckets a client names are made on first use, as barman's tools
	// expect of a store they may set up themselves.
	handler := gofakes3.New(backend, gofakes3.WithAutoBucket(true), gofakes3.WithGlobalLog()).Server()
	errs := make(chan error, 2)
	go func() {
		log.Printf("s3store: serving %v over HTTP on %s", o.buckets, o.addr)
		errs <- newServer(o.addr, handler).ListenAndServe()
	}()
	if o.tlsAddr != "" {
		go func() {
			log.Printf("s3store: serving %v over HTTPS on %s", o.buckets, o.tlsAddr)
			errs <- newServer(o.tlsAddr, handler).ListenAndServeTLS(o.tlsCert, o.tlsKey)
		}()
	}
	return <-errs
}

func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 30 * time.Second}
}
