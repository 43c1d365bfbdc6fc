import { describeCoveringShare } from "./covering.ts";

describeCoveringShare(0, 2);
