// A tiny kafka-go 0.2.x client for test_kafka_go_legacy.py (Debian's
// golang-github-segmentio-kafka-go-dev, built with GO111MODULE=off GOPATH=/usr/share/gocode).
// kafka-go 0.2.x speaks Produce v2 and Fetch v2 (message format v1) and ListOffsets v1.
//
//	main produce BROKER TOPIC N PREFIX none|gzip BASE_TS_MS
//	    writes N messages PREFIX-key-i / PREFIX-value-i with timestamp BASE_TS_MS+i via Writer
//	main consume BROKER TOPIC N
//	    reads N messages of partition 0 from offset 0 via Reader, one line each:
//	    "offset key value timestamp_ms"
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/gzip"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 5 {
		fail("usage: %s produce|consume BROKER TOPIC N ...", os.Args[0])
	}
	mode, broker, topic := os.Args[1], os.Args[2], os.Args[3]
	n, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fail("bad N: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	switch mode {
	case "produce":
		prefix, codec := os.Args[5], os.Args[6]
		base, _ := strconv.ParseInt(os.Args[7], 10, 64)
		cfg := kafka.WriterConfig{Brokers: []string{broker}, Topic: topic,
			Balancer: &kafka.LeastBytes{}, BatchSize: 10, BatchTimeout: 10 * time.Millisecond}
		if codec == "gzip" {
			cfg.CompressionCodec = gzip.NewCompressionCodec()
		}
		w := kafka.NewWriter(cfg)
		msgs := make([]kafka.Message, n)
		for i := range msgs {
			msgs[i] = kafka.Message{Key: []byte(fmt.Sprintf("%s-key-%d", prefix, i)),
				Value: []byte(fmt.Sprintf("%s-value-%d", prefix, i)),
				Time:  time.Unix(0, (base+int64(i))*int64(time.Millisecond))}
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			fail("write: %v", err)
		}
		if err := w.Close(); err != nil {
			fail("close: %v", err)
		}
	case "consume":
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{broker}, Topic: topic,
			Partition: 0, MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 200 * time.Millisecond})
		defer r.Close()
		if err := r.SetOffset(0); err != nil {
			fail("seek: %v", err)
		}
		for i := 0; i < n; i++ {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				fail("read %d: %v", i, err)
			}
			fmt.Printf("%d %s %s %d\n", m.Offset, m.Key, m.Value, m.Time.UnixNano()/int64(time.Millisecond))
		}
	default:
		fail("unknown mode %s", mode)
	}
}
