//go:build race

package queue

// raceEnabled is true when the tests run with -race.
const raceEnabled = true
