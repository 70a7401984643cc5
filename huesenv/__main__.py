import sys

from huesenv.cli import main

sys.exit(main())
