#!/bin/sh
# Leaves a child holding the pipes, and exits.
sleep 1000 &
exit 0
