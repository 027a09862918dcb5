package main

import "sync"

// pieceBytes is how much output a worker gathers before handing it to the
// writer, between two of a job's lines or exchanges.
const pieceBytes = 1 << 20

// inPieces runs the jobs feed sends on workers (each made by newWorker,
// state of its own), up to depth of them waiting, and hands put each piece of output they emit, in the
// jobs' order and each job's pieces in the order they were made. A job's
// pieces wait in a channel of one, so a worker ahead of the writer waits
// for it: what is held at once is a few pieces a worker, not all that a
// job's input expands to (a frame of a few hundred bytes can decode to
// tens of megabytes, and a job holds hundreds of frames).
func inPieces[J, P any](workers, depth int, newWorker func() func(J, func(P)), feed func(send func(J)), put func(P)) {
	type job struct {
		j   J
		out chan P
	}
	jobs := make(chan job, depth)
	order := make(chan chan P, depth)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for x := range jobs {
				work(x.j, func(p P) { x.out <- p })
				close(x.out)
			}
		}()
	}
	go func() {
		// Jobs are taken in the order they are sent: the job the writer
		// waits on is always taken before any after it, so a worker
		// waiting on the writer never holds it up.
		feed(func(j J) {
			out := make(chan P)
			order <- out
			jobs <- job{j, out}
		})
		close(jobs)
		close(order)
	}()
	for out := range order {
		for p := range out {
			put(p)
		}
	}
	wg.Wait()
}
