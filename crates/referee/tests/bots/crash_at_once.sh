#!/bin/sh
# Dies before reading anything.
exit 3
