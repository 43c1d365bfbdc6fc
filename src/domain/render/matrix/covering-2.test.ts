import { describeCoveringShare } from "../../../../test/fixtures/render/covering.ts";

describeCoveringShare(1, 2);
