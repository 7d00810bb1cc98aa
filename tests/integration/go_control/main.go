// Sarama 1.22 (Debian's golang-github-shopify-sarama-dev) against a skiff broker that emulates
// a Kafka release, for test_control_api.py. Built offline with GO111MODULE=off
// GOPATH=/usr/share/gocode CGO_ENABLED=0. Usage: sarama_control BOOTSTRAP TOPIC N
// Produces N messages to partition 0 with a SyncProducer (acks=all), reads them back with a
// partition consumer from the oldest offset and checks every value, in order; prints
// "ok: sarama ..." and exits 0, or says what was wrong and exits 1.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/Shopify/sarama"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: %s BOOTSTRAP TOPIC N", os.Args[0])
	}
	bootstrap, topic := os.Args[1], os.Args[2]
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail("N: %v", err)
	}
	conf := sarama.NewConfig()
	conf.ClientID = "emu-sarama"
	conf.Version = sarama.V2_1_0_0 // the newest protocol this Sarama knows well
	conf.Producer.RequiredAcks = sarama.WaitForAll
	conf.Producer.Return.Successes = true
	conf.Producer.Partitioner = sarama.NewManualPartitioner
	conf.Consumer.Return.Errors = true
	conf.Net.DialTimeout = 5 * time.Second
	conf.Metadata.Retry.Backoff = 100 * time.Millisecond

	producer, err := sarama.NewSyncProducer([]string{bootstrap}, conf)
	if err != nil {
		fail("producer: %v", err)
	}
	for i := 0; i < n; i++ {
		part, off, err := producer.SendMessage(&sarama.ProducerMessage{
			Topic: topic, Partition: 0, Value: sarama.StringEncoder(fmt.Sprintf("sarama-%02d", i))})
		if err != nil {
			fail("send %d: %v", i, err)
		}
		if part != 0 || off != int64(i) {
			fail("send %d: partition %d offset %d", i, part, off)
		}
	}
	producer.Close()

	consumer, err := sarama.NewConsumer([]string{bootstrap}, conf)
	if err != nil {
		fail("consumer: %v", err)
	}
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		fail("consume partition: %v", err)
	}
	timeout := time.After(20 * time.Second)
	for i := 0; i < n; i++ {
		select {
		case m := <-pc.Messages():
			want := fmt.Sprintf("sarama-%02d", i)
			if string(m.Value) != want || m.Offset != int64(i) {
				fail("record %d: offset %d value %q, want %q", i, m.Offset, m.Value, want)
			}
		case e := <-pc.Errors():
			fail("consume: %v", e)
		case <-timeout:
			fail("consumed %d of %d records in 20 s", i, n)
		}
	}
	pc.Close()
	consumer.Close()
	fmt.Printf("ok: sarama %d records produced and consumed\n", n)
}
