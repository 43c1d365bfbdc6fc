import { Layout } from "../components/Layout";
import { RenderList } from "../components/RenderList";

/** Every render of the account: progress, cancel, player and download, failures with their clip. */
export function RendersPage() {
  return (
    <Layout title="Renders">
      <RenderList />
    </Layout>
  );
}
