#!/bin/sh
# Never reads stdin, never answers.
exec sleep 1000
