import { describeCoveringShare } from "./covering.ts";

describeCoveringShare(1, 2);
