package main

import (
	"flag"
	"os"
	"time"

	"github.com/kwire/kwire/internal/capture"
)

// keyLogFlag is --tls-keylog: the TLS key log (SSLKEYLOGFILE's lines)
// that decrypts a capture's TLS connections, read once the flags are, and
// read again when a session's secrets are not in it (the client may still
// be writing it).
type keyLogFlag struct {
	file string
	log  *capture.KeyLog
	seen os.FileInfo // the file as it was when read last
	// idle is set when a wait for the file to change ran out: the next
	// session whose secrets are not in it waits no more until it does.
	// Sessions read from a pipe one after another (a capture file on
	// standard input) waited a quarter of a second each: 100 sessions a
	// key log lacks took 25 s. waits counts the waits that ran out.
	idle  bool
	waits int
}

const keyLogUsage = "decrypt TLS connections with the secrets in `FILE`, a key log as SSLKEYLOGFILE has curl and OpenSSL write, or Go's tls.Config.KeyLogWriter and Python's SSLContext.keylog_filename (TLS 1.2 and 1.3, AES-GCM and ChaCha20-Poly1305, and in TLS 1.2 AES-CBC with HMAC-SHA-1, -SHA-256 or -SHA-384); read again when a session is not in it, so it may still be being written (- reads a live capture: the file may not exist yet); a pcapng file's own secrets (editcap --inject-secrets) are used without it"

func (k *keyLogFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&k.file, "tls-keylog", "", keyLogUsage)
}

// load reads the key log named, if any; false (said) when it cannot be
// read or holds no secret, unless the capture is live (its client may
// not have written it yet).
func (k *keyLogFlag) load(e *env, live bool) bool {
	if k.file == "" {
		return true
	}
	if k.file == "-" {
		fail(e, "--tls-keylog -: a key log is a file the client writes (standard input is for the capture)")
		return false
	}
	kl, err := k.read()
	if err != nil && !live {
		fail(e, "--tls-keylog %v", fileError(k.file, err))
		return false
	}
	k.log = kl
	return true
}

// read reads the file whole.
func (k *keyLogFlag) read() (*capture.KeyLog, error) {
	f, err := os.Open(k.file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if k.seen, err = f.Stat(); err != nil {
		return nil, err
	}
	return capture.ParseKeyLog(f)
}

// options sets o to decrypt with the key log, read again when a session
// is not in it: at once when changed, and in a live capture after up to
// a quarter of a second of waiting for its client to write it.
func (k *keyLogFlag) options(o *capture.Options, live bool) {
	if k.file == "" {
		return
	}
	o.KeyLog = k.log
	o.KeyLogUpdate = func() *capture.KeyLog {
		deadline := time.Now().Add(250 * time.Millisecond)
		for {
			if fi, err := os.Stat(k.file); err == nil && (k.seen == nil || fi.Size() != k.seen.Size() || !fi.ModTime().Equal(k.seen.ModTime())) {
				if kl, err := k.read(); err == nil {
					k.log, k.idle = kl, false
					return kl
				}
			}
			if !live || k.idle {
				return nil
			}
			if time.Now().After(deadline) {
				k.idle = true
				k.waits++
				return nil
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// missing says, when the key log named was never there to read (a live
// capture waits for it to appear), that n TLS connections were left
// encrypted for it; "" otherwise. A mistyped name said nothing.
func (k *keyLogFlag) missing(n int) string {
	if k.file == "" || k.seen != nil || n == 0 {
		return ""
	}
	return "--tls-keylog " + k.file + " never appeared: " + plural(n, "TLS connection") + " left encrypted"
}

// keyLogHint says how n TLS connections left encrypted are decrypted.
func keyLogHint(n int) string {
	return pluralOf(n, "TLS connection left encrypted: --tls-keylog FILE decrypts it with the secrets its client logged",
		"TLS connections left encrypted: --tls-keylog FILE decrypts them with the secrets their clients logged") + " (SSLKEYLOGFILE, Go's tls.Config.KeyLogWriter)"
}
