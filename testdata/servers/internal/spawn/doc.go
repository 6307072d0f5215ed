// Package spawn lets the hostile fixture servers leave processes behind on
// purpose: daemons that leave the process group with setsid, children that
// fork as they die, sleepers that ignore SIGTERM. Every process records its
// PID in the directory named by the PIDDIR environment variable, which the
// tests pass with --env, so that they can check that mcp-fuzz ended them all.
// Without PIDDIR (the fixture package's own tests) nothing is spawned.
package spawn
